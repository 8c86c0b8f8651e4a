import Foundation
import Postgres
import Testing

/// Deletes and restores the way the app makes them: an upsert or PATCH that
/// moves `status` to `deleted` is `DELETE`'s operation — who may, `deleted_at` from the server,
/// the history row, sync delivery — and a live status on a deleted row is a restore, which takes
/// the delete's permission. The bodies carry every key the app's DTOs send (reference 001).
@Suite struct RestWriteSoftDeleteTests {
    static let upsert = ["resolution=merge-duplicates,return=representation"]

    /// The app's TaskDTO for `id` as supabase-swift encodes it: upper-case UUIDs, dates in
    /// milliseconds without a zone, every server-managed field sent back with client values.
    static func taskDTO(_ id: String, status: String, declaredBy: String, claimedBy: String?, listing: String) -> [String: Any] {
        let clientTime = "2001-02-03T04:05:06.789"
        return ["id": id.uppercased(), "title": "Call the buyer", "description": NSNull(), "due_date": "2026-06-15T18:12:04.123",
                "priority": "medium", "status": status, "declared_by": declaredBy.uppercased(),
                "claimed_by": claimedBy.map { $0.uppercased() as Any } ?? NSNull(), "listing_id": listing.uppercased(),
                "created_via": "dispatch", "claimed_at": clientTime, "completed_at": clientTime, "deleted_at": clientTime,
                "created_at": clientTime, "updated_at": clientTime]
    }

    @Test func anUpsertOrPatchToDeletedIsTheDeleteWithItsRulesAndSideEffects() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try rest.world.scene(claimed: true)
        // ISO 8601 with a Z (no '+' to escape in a query string).
        let before = try #require(try rest.text("""
            SELECT to_char((now() - interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            """))
        let dto = Self.taskDTO(scene.task, status: "deleted", declaredBy: rest.world.id(.declarer),
                               claimedBy: rest.world.id(.claimer), listing: scene.listing)

        // The claimer may update the task but not delete it: PostgREST's 403, nothing changed.
        let refused = try rest.send("POST", "tasks", as: .claimer, body: dto, prefer: Self.upsert)
        #expect(refused.status == 403 && refused.json?["code"] as? String == "42501", "\(RestWriteWorld.body(refused))")
        #expect(try rest.text("SELECT status || ' ' || version FROM tasks WHERE id = \(scene.task)::uuid") == "open 1")

        // The declarer's upsert deletes; deleted_at and the other stamps are the server's.
        let done = try rest.send("POST", "tasks", as: .declarer, body: dto, prefer: Self.upsert)
        #expect(done.status == 201, "\(RestWriteWorld.body(done))")
        #expect(RestWriteWorld.array(done).first?["status"] as? String == "deleted")
        #expect(try rest.count("""
            SELECT count(*)::int FROM tasks WHERE id = \(scene.task)::uuid AND status = 'deleted' AND deleted_at > \(before)::timestamptz
               AND completed_at IS NULL AND claimed_at > '2020-01-01' AND created_at > '2020-01-01'
            """) == 1)
        let history = { try rest.count("""
            SELECT count(*)::int FROM status_changes WHERE entity_id = \(scene.task)::uuid AND old_status = 'open'
               AND new_status = 'deleted' AND changed_by = \(rest.world.id(.declarer))::uuid
            """) }
        #expect(try history() == 1)
        // The app retries dirty rows: the replay changes nothing (no version bump, no history).
        let version = try rest.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid")
        #expect(try rest.send("POST", "tasks", as: .declarer, body: dto, prefer: Self.upsert).status == 201)
        #expect(try rest.count("SELECT version FROM tasks WHERE id = \(scene.task)::uuid") == version)
        #expect(try history() == 1)
        // A tombstone takes no other keys: a stale copy's delete is still a success, not a 409.
        var stale = dto
        stale["title"] = "Edited offline"
        #expect(try rest.send("POST", "tasks", as: .declarer, body: stale, prefer: Self.upsert).status == 201)
        #expect(try rest.text("SELECT title FROM tasks WHERE id = \(scene.task)::uuid") == "Call the buyer")
        // Delivered to another syncing user as the app's delta read sees it.
        let delta = try rest.send("GET", "tasks?select=id,status,deleted_at&id=eq.\(scene.task)&updated_at=gt.\(before)", as: .owner)
        #expect(RestWorld.array(delta).map { $0["status"] as? String } == ["deleted"], "\(RestWriteWorld.body(delta))")

        // PATCH with or without deleted_at: the same rules (claimer 403, declarer deletes).
        let path = "activities?id=eq.\(scene.activity.uppercased())"
        let byClaimer = try rest.send("PATCH", path, as: .claimer, body: ["status": "deleted", "deleted_at": "2001-02-03T04:05:06.789"])
        #expect(byClaimer.status == 403 && byClaimer.json?["code"] as? String == "42501")
        let patched = try rest.send("PATCH", path, as: .declarer, body: ["status": "deleted", "title": "Last words"],
                                    prefer: ["return=representation"])
        #expect(patched.status == 200 && RestWriteWorld.array(patched).first?["status"] as? String == "deleted")
        #expect(try rest.text("""
            SELECT title || ' ' || (deleted_at > \(before)::timestamptz) FROM activities WHERE id = \(scene.activity)::uuid
            """) == "Last words true")

        // Listings: staff may update but not delete; the owner's upsert deletes.
        let listing: [String: Any] = ["id": scene.listing.uppercased(), "address": "1 Main St", "status": "deleted",
                                      "deleted_at": NSNull(), "activated_at": "2001-02-03T04:05:06.789"]
        #expect(try rest.send("POST", "listings", as: .staff, body: listing, prefer: Self.upsert).status == 403)
        #expect(try rest.send("POST", "listings", as: .owner, body: listing, prefer: Self.upsert).status == 201)
        #expect(try rest.text("""
            SELECT status || ' ' || (deleted_at IS NOT NULL) || ' ' || (activated_at IS NULL) FROM listings WHERE id = \(scene.listing)::uuid
            """) == "deleted true true")
    }

    @Test func aBulkUpsertWithOneRowTheCallerMayNotDeleteChangesNothing() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer])
        let scene = try rest.world.scene(claimed: false)
        let staff = rest.world.id(.staff)
        // Made and deleted offline before its first sync, plus an edit, plus the declarer's task.
        let offline = UUID().uuidString
        let mine = Self.taskDTO(offline, status: "deleted", declaredBy: staff, claimedBy: nil, listing: scene.listing)
        let theirs = Self.taskDTO(scene.task, status: "deleted", declaredBy: rest.world.id(.declarer), claimedBy: nil,
                                  listing: scene.listing)
        let refused = try rest.send("POST", "tasks?columns=\"id\",\"title\",\"status\",\"listing_id\"", as: .staff,
                                    body: [mine, theirs], prefer: Self.upsert)
        #expect(refused.status == 403 && refused.json?["code"] as? String == "42501", "\(RestWriteWorld.body(refused))")
        #expect(try rest.count("SELECT count(*)::int FROM tasks WHERE id = \(offline.lowercased())::uuid") == 0)
        #expect(try rest.text("SELECT status FROM tasks WHERE id = \(scene.task)::uuid") == "open")

        let stored = try rest.send("POST", "tasks", as: .staff, body: [mine], prefer: Self.upsert)
        #expect(stored.status == 201, "\(RestWriteWorld.body(stored))")
        #expect(try rest.text("""
            SELECT string_agg(coalesce(old_status, '-') || '>' || new_status, ',' ORDER BY created_at, new_status DESC)
            FROM status_changes WHERE entity_id = \(offline.lowercased())::uuid
            """) == "->open,open>deleted")
        // ignore-duplicates leaves an existing row alone, status deleted or not (here a record
        // the stored row matches but for the status, which an insert would take as a replay).
        let same: [String: Any] = ["id": scene.task, "title": "Call the buyer", "status": "deleted"]
        let ignored = try rest.send("POST", "tasks", as: .declarer, body: [same],
                                    prefer: ["resolution=ignore-duplicates,return=representation"])
        #expect(ignored.status == 201 && RestWriteWorld.array(ignored).isEmpty)
        #expect(try rest.text("SELECT status FROM tasks WHERE id = \(scene.task)::uuid") == "open")
    }

    @Test func aRestoreTakesTheDeletePermissionClearsDeletedAtAndIsRecorded() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .staff, .declarer, .claimer])
        let scene = try rest.world.scene(taskStatus: "deleted", claimed: true)
        try rest.world.app.database.pool.execute("UPDATE tasks SET deleted_at = now() WHERE id = \(scene.task)::uuid")
        let dto = Self.taskDTO(scene.task, status: "in_progress", declaredBy: rest.world.id(.declarer),
                               claimedBy: rest.world.id(.claimer), listing: scene.listing)
        // A pending edit from before the delete (the claimer's) is refused as a delete would be.
        let refused = try rest.send("POST", "tasks", as: .claimer, body: dto, prefer: Self.upsert)
        #expect(refused.status == 403 && refused.json?["code"] as? String == "42501", "\(RestWriteWorld.body(refused))")
        // Other keys alone never change a tombstone.
        let edit = try rest.send("PATCH", "tasks?id=eq.\(scene.task)", as: .declarer, body: ["title": "Changed"])
        #expect(edit.status == 409 && edit.json?["code"] as? String == "row_deleted")
        #expect(try rest.text("SELECT status || ' ' || title FROM tasks WHERE id = \(scene.task)::uuid") == "deleted Call the buyer")

        let restored = try rest.send("POST", "tasks", as: .declarer, body: dto, prefer: Self.upsert)
        #expect(restored.status == 201, "\(RestWriteWorld.body(restored))")
        #expect(try rest.text("SELECT status || ' ' || (deleted_at IS NULL) FROM tasks WHERE id = \(scene.task)::uuid") == "in_progress true")
        #expect(try rest.count("""
            SELECT count(*)::int FROM status_changes WHERE entity_id = \(scene.task)::uuid AND old_status = 'deleted'
               AND new_status = 'in_progress' AND changed_by = \(rest.world.id(.declarer))::uuid
            """) == 1)

        // Listings: staff may update but not delete, so not restore; the owner restores, and
        // entering `active` stamps activated_at.
        try rest.world.app.database.pool.execute("UPDATE listings SET status = 'deleted', deleted_at = now() WHERE id = \(scene.listing)::uuid")
        let listing = "listings?id=eq.\(scene.listing.uppercased())"
        let byStaff = try rest.send("PATCH", listing, as: .staff, body: ["status": "active"])
        #expect(byStaff.status == 403 && byStaff.json?["code"] as? String == "42501", "\(RestWriteWorld.body(byStaff))")
        #expect(try rest.send("PATCH", listing, as: .owner, body: ["status": "active"]).status == 204)
        #expect(try rest.text("""
            SELECT status || ' ' || (deleted_at IS NULL) || ' ' || (activated_at IS NOT NULL) FROM listings WHERE id = \(scene.listing)::uuid
            """) == "active true true")
    }
}
