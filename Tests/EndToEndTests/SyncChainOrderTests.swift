import Foundation
import Testing

/// Parents precede children across the pages of a chain, also when rows
/// are written while the chain is between stages. Deterministic: each test pauses a chain
/// after a page that ends at a known stage, writes, and resumes.
@Suite struct SyncChainOrderTests {
    /// A delta chain paused after its first page, which ends in the activities stage.
    static func pausedChain(_ server: SyncTestServer, as rita: SyncTestServer.Member,
                            listing: UUID, replica: inout SyncReplica) throws -> [String: Any] {
        try server.execute("UPDATE listings SET address = 'changed' WHERE id = \(listing)")
        _ = try server.task(by: rita, on: listing)
        _ = try server.task(by: rita, on: listing, table: "activities")
        _ = try server.note(on: "listing", listing, by: rita)
        let first = try replica.apply(try server.sync(rita, since: replica.since, limit: 3))
        #expect(first["has_more"] as? Bool == true)
        #expect((first["activities"] as? [Any])?.count == 1)
        return first
    }

    @Test func aTaskAndItsChildrenCreatedMidChainWaitForTheNextChain() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        _ = try Self.pausedChain(server, as: rita, listing: listing, replica: &replica)

        // Written while the chain is past the tasks stage.
        let task = try server.task(by: rita, on: listing)
        let note = try server.note(on: "task", task, by: rita)
        try server.execute("INSERT INTO status_changes (entity_type, entity_id, new_status, changed_by) VALUES ('task', \(task), 'open', \(rita.id))")
        try replica.syncToEnd(server, as: rita) { 1 }
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        #expect(!replica.ids("notes").contains(note.lowercased), "the note came in the chain that could not carry its task")

        // The next chain brings the task before its children.
        try replica.syncToEnd(server, as: rita) { 1 }
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        #expect(replica.ids("tasks").contains(task.lowercased) && replica.ids("notes").contains(note.lowercased))
        #expect(replica.state == (try server.expectedState(for: rita)))
    }

    @Test func aParentRewrittenMidChainComesWithItsOlderChild() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita")
        let listing = try server.listing(owner: rita)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: rita)
        // A task and its note written before the chain, and a listing change for page one.
        let task = try server.task(by: rita, on: listing)
        let note = try server.note(on: "task", task, by: rita)
        try server.execute("UPDATE listings SET address = 'changed' WHERE id = \(listing)")
        let first = try replica.apply(try server.sync(rita, since: replica.since, limit: 1))
        #expect((first["listings"] as? [Any])?.count == 1 && first["has_more"] as? Bool == true)

        // Rewritten after the chain began: the tasks stage skips it (the next chain sends
        // it), while its older note is still this chain's, so the task travels with the note.
        try server.execute("UPDATE tasks SET title = 'rewritten' WHERE id = \(task)")
        try replica.syncToEnd(server, as: rita) { 1 }
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        #expect(replica.ids("notes").contains(note.lowercased))
        try replica.syncToEnd(server, as: rita) { 1 }
        #expect(replica.rows["tasks"]?[task.lowercased]?["title"] as? String == "rewritten")
        #expect(replica.state == (try server.expectedState(for: rita)))
    }

    @Test func aParentGrantedMidChainComesWithItsOlderChild() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), sam = try server.member("sam")
        let ritas = try server.listing(owner: rita), sams = try server.listing(owner: sam)
        var replica = SyncReplica()
        try replica.syncToEnd(server, as: sam)
        // Rita's task gets a note; Sam's own listing changes, for page one.
        let task = try server.task(by: rita, on: ritas)
        let note = try server.note(on: "task", task, by: rita)
        try server.execute("UPDATE listings SET address = 'changed' WHERE id = \(sams)")
        _ = try server.task(by: sam, on: sams)
        let first = try replica.apply(try server.sync(sam, since: replica.since, limit: 1))
        #expect(first["has_more"] as? Bool == true)

        // Sam becomes staff of Rita's listing after the chain began: the task's row does not
        // change, but he had never received it, and its note is this chain's.
        try server.execute("UPDATE listings SET assigned_staff = \(sam.id) WHERE id = \(ritas)")
        try replica.syncToEnd(server, as: sam) { 1 }
        #expect(replica.orphans.isEmpty, "\(replica.orphans)")
        try replica.syncToEnd(server, as: sam) { 1 }
        #expect(replica.ids("notes").contains(note.lowercased))
        #expect(replica.state == (try server.expectedState(for: sam)))
    }
}
