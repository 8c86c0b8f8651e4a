import Foundation
import Testing

/// Rows leaving (and entering) a caller's visibility without the caller's own rows changing:
/// each case one by one, then the no-leak guarantees.
@Suite struct SyncRevocationTests {
    /// Syncs `member` to the end and checks the replica equals what the server says it may see.
    private func converge(_ replica: inout SyncReplica, _ server: SyncTestServer, _ member: SyncTestServer.Member,
                          admin: Bool = false) throws -> [[String: String]] {
        let before = replica.bodies.count
        try replica.syncToEnd(server, as: member)
        #expect(replica.state == (try server.expectedState(for: member, admin: admin)))
        return replica.bodies[before...].flatMap { body -> [[String: String]] in
            let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
            return (json?["removed"] as? [[String: String]]) ?? []
        }
    }

    @Test(arguments: ["tasks", "activities"])
    func releasedClaimRemovesTheItemAndItsListingFromTheFormerClaimer(table: String) throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto)
        let item = try server.task(by: otto, on: listing, claimedBy: rita, table: table)
        let note = try server.note(on: table == "tasks" ? "task" : "activity", item, by: otto)
        var replica = SyncReplica()
        _ = try converge(&replica, server, rita)
        #expect(replica.ids("notes") == [note.lowercased])

        try server.execute("UPDATE \(unsafeSQL: table) SET claimed_by = NULL, claimed_at = NULL WHERE id = \(item)")
        let removed = try converge(&replica, server, rita)
        let type = table == "tasks" ? "task" : "activity"
        #expect(removed.contains(["type": type, "id": item.lowercased]))
        #expect(removed.contains(["type": "listing", "id": listing.lowercased]))
        #expect(replica.ids("notes").isEmpty)
    }

    @Test func reassignedStaffLosesTheListingAndItsItemsAndTheNewStaffGetsThemWithChildren() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto"), sam = try server.member("sam")
        let listing = try server.listing(owner: otto, staff: rita)
        let task = try server.task(by: otto, on: listing)
        let note = try server.note(on: "task", task, by: otto)
        let subtask = try server.subtask(on: "task", task)
        var ritaReplica = SyncReplica(), samReplica = SyncReplica()
        _ = try converge(&ritaReplica, server, rita)
        _ = try converge(&samReplica, server, sam)
        #expect(samReplica.ids("tasks").isEmpty)

        try server.execute("UPDATE listings SET assigned_staff = \(sam.id) WHERE id = \(listing)")
        let removed = try converge(&ritaReplica, server, rita)
        #expect(removed.contains(["type": "listing", "id": listing.lowercased]))
        #expect(removed.contains(["type": "task", "id": task.lowercased]))
        #expect(ritaReplica.ids("notes").isEmpty && ritaReplica.ids("subtasks").isEmpty)

        // The grant brings rows whose own txid is older than sam's cursor.
        _ = try converge(&samReplica, server, sam)
        #expect(samReplica.ids("tasks") == [task.lowercased])
        #expect(samReplica.ids("notes") == [note.lowercased])
        #expect(samReplica.ids("subtasks") == [subtask.lowercased])
    }

    @Test func transferredOwnershipRemovesTheListingAndOthersItemsButKeepsOwnDeclaredOnes() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: rita)
        let ottos = try server.task(by: otto, on: listing)
        let ritas = try server.task(by: rita, on: listing)
        var replica = SyncReplica()
        _ = try converge(&replica, server, rita)

        try server.execute("UPDATE listings SET owned_by = \(otto.id) WHERE id = \(listing)")
        let removed = try converge(&replica, server, rita)
        #expect(removed.contains(["type": "task", "id": ottos.lowercased]))
        #expect(!removed.contains(["type": "task", "id": ritas.lowercased]))
        // Rita still declared a task on it, so she still sees the listing.
        #expect(!removed.contains(["type": "listing", "id": listing.lowercased]))
        #expect(replica.ids("tasks") == [ritas.lowercased])
    }

    @Test func taskMovedToAnotherListingLeavesOldStaffAndBringsTheNewListingToItsDeclarer() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto"), sam = try server.member("sam")
        let first = try server.listing(owner: otto, staff: sam)
        let second = try server.listing(owner: otto)
        let listingNote = try server.note(on: "listing", second, by: otto)
        let task = try server.task(by: rita, on: first)
        var ritaReplica = SyncReplica(), samReplica = SyncReplica()
        _ = try converge(&ritaReplica, server, rita)
        _ = try converge(&samReplica, server, sam)
        #expect(samReplica.ids("tasks") == [task.lowercased])

        try server.execute("UPDATE tasks SET listing_id = \(second) WHERE id = \(task)")
        let samRemoved = try converge(&samReplica, server, sam)
        #expect(samRemoved.contains(["type": "task", "id": task.lowercased]))
        #expect(samReplica.ids("listings") == [first.lowercased])

        let ritaRemoved = try converge(&ritaReplica, server, rita)
        #expect(ritaRemoved.contains(["type": "listing", "id": first.lowercased]))
        #expect(ritaReplica.ids("listings") == [second.lowercased])
        #expect(ritaReplica.ids("notes") == [listingNote.lowercased])
    }

    @Test func deactivatedUserIsRemovedForRealtorsAndStaysForAdmins() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto"), ada = try server.member("ada", admin: true)
        var ritaReplica = SyncReplica(), adaReplica = SyncReplica()
        _ = try converge(&ritaReplica, server, rita)
        _ = try converge(&adaReplica, server, ada, admin: true)

        try server.execute("UPDATE users SET deactivated_at = now() WHERE id = \(otto.id)")
        let removed = try converge(&ritaReplica, server, rita)
        #expect(removed.contains(["type": "user", "id": otto.key]))
        let adminRemoved = try converge(&adaReplica, server, ada, admin: true)
        #expect(adminRemoved.isEmpty)
        #expect(adaReplica.rows["users"]?[otto.key]?["deactivated_at"] is String)
    }

    @Test func outsiderNeverReceivesAnIdOfRowsItNeverSaw() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto"), sam = try server.member("sam")
        var outsider = SyncReplica()
        _ = try converge(&outsider, server, sam)
        var secrets: [UUID] = []
        let listing = try server.listing(owner: otto, staff: rita)
        let task = try server.task(by: otto, on: listing)
        secrets += [listing, task, try server.note(on: "task", task, by: otto), try server.subtask(on: "task", task)]
        _ = try converge(&outsider, server, sam)
        try server.execute("UPDATE tasks SET claimed_by = \(rita.id), claimed_at = now() WHERE id = \(task)")
        try server.execute("UPDATE tasks SET claimed_by = NULL, claimed_at = NULL WHERE id = \(task)")
        _ = try converge(&outsider, server, sam)
        try server.execute("UPDATE listings SET assigned_staff = NULL, owned_by = \(rita.id) WHERE id = \(listing)")
        let other = try server.listing(owner: otto)
        secrets.append(other)
        try server.execute("UPDATE tasks SET listing_id = \(other), status = 'deleted', deleted_at = now() WHERE id = \(task)")
        _ = try converge(&outsider, server, sam)

        let everything = outsider.bodies.joined()
        for secret in secrets { #expect(!everything.contains(secret.lowercased)) }
    }

    @Test func formerStaffIsNeverToldAboutItemsCreatedAfterLosingTheListing() throws {
        let server = try SyncTestServer()
        let rita = try server.member("rita"), otto = try server.member("otto")
        let listing = try server.listing(owner: otto, staff: rita)
        let seen = try server.task(by: otto, on: listing)
        var replica = SyncReplica()
        _ = try converge(&replica, server, rita)

        try server.execute("UPDATE listings SET assigned_staff = NULL WHERE id = \(listing)")
        let unseen = try server.task(by: otto, on: listing)
        try server.execute("UPDATE tasks SET title = 'edited later' WHERE id = \(unseen)")
        let removed = try converge(&replica, server, rita)
        #expect(removed.contains(["type": "task", "id": seen.lowercased]))
        #expect(!replica.bodies.joined().contains(unseen.lowercased))
    }
}
