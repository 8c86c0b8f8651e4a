import Domain
import Foundation
import Postgres
import Store
import Testing

/// The store operations behind the console's edits, run against the API they must
/// agree with: off-boarding hands claims and listings over in one transaction with history rows
/// and sync delivery; a restore returns a deleted row to its previous status; the office
/// filters narrow the API's own list.
@Suite struct ConsoleDataStoreTests {
    static func uuid(_ text: String) throws -> UUID { try #require(UUID(uuidString: text)) }

    @Test func offboardingHandsOverClaimsAndListingsWithHistoryAndSyncDeliveryOrNothing() throws {
        let world = try ResourceWorld()
        let pool = world.app.database.pool
        let scene = try world.scene()
        let (claimer, stranger, admin) = (try Self.uuid(world.id(.claimer)), try Self.uuid(world.id(.stranger)), try Self.uuid(world.id(.admin)))
        // The claimer also owns a listing and holds a completed task (which keeps its claimer).
        let own = UUID(), done = UUID()
        try pool.execute("INSERT INTO listings (id, address, owned_by, assigned_staff) VALUES (\(own), '2 Side St', \(claimer), \(stranger))")
        try pool.execute("""
            INSERT INTO tasks (id, title, status, declared_by, claimed_by, claimed_at) VALUES (\(done), 'Done', 'completed', \(claimer), \(claimer), now())
            """)
        let before = try world.request("GET", "/v1/sync", as: .claimer)
        let since = try #require(before.json?["next_since"] as? String)
        let offboarding = Offboarding(pool: pool)
        #expect(try offboarding.preview(user: claimer) == (claims: 2, owned: 1, staffed: 0))

        // A target that cannot take them (deactivated) fails the whole hand-over: nothing moved.
        let gone = try world.app.auth.users.create(email: "gone@example.com", name: "Gone", userType: .realtor, passwordHash: "x")
        _ = try world.app.auth.users.update(id: gone.id, changes: .init(deactivated: true))
        #expect(throws: DomainError.self) {
            try offboarding.run(Viewer(userID: admin, isAdmin: true), user: claimer, claimsTo: stranger, listingsTo: gone.id)
        }
        #expect(try world.count("SELECT count(*) FROM tasks WHERE claimed_by = \(claimer)") == 2)
        #expect(try world.count("SELECT count(*) FROM claim_events") == 0)
        #expect(throws: DomainError.self) {
            try offboarding.run(Viewer(userID: claimer, isAdmin: false), user: claimer, claimsTo: nil, listingsTo: stranger)
        }

        let result = try offboarding.run(Viewer(userID: admin, isAdmin: true), user: claimer, claimsTo: stranger, listingsTo: stranger)
        #expect(result.released == 0 && result.reassigned == 2 && result.listingsOwned == 1 && result.listingsStaffed == 0)
        for table in ["tasks", "activities"] {
            let id = table == "tasks" ? scene.task : scene.activity
            #expect(try world.count("SELECT count(*) FROM \(unsafeSQL: table) WHERE id = \(id)::uuid AND claimed_by = \(stranger)") == 1)
            #expect(try world.count("""
                SELECT count(*) FROM claim_events WHERE entity_id = \(id)::uuid AND actor_id = \(admin)
                   AND ((action = 'released' AND user_id = \(claimer)) OR (action = 'claimed' AND user_id = \(stranger)))
                """) == 2)
        }
        #expect(try world.count("SELECT count(*) FROM tasks WHERE id = \(done) AND claimed_by = \(claimer)") == 1)
        // The new owner was its staff: no staff assignment to themself.
        #expect(try world.count("SELECT count(*) FROM listings WHERE id = \(own) AND owned_by = \(stranger) AND assigned_staff IS NULL") == 1)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .stranger).status == 200)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .claimer).status == 404)
        // The claimer's phone hears that the handed-over items are gone.
        let after = try world.request("GET", "/v1/sync?since=\(since)", as: .claimer)
        let removed = Set(((after.json?["removed"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        #expect(removed.isSuperset(of: [scene.task, scene.activity]))
    }

    @Test func restoreReturnsADeletedRowToItsPreviousStatusForAdminsOnly() throws {
        let world = try ResourceWorld()
        let pool = world.app.database.pool
        let scene = try world.scene(taskStatus: "in_progress")
        let id = try Self.uuid(scene.task)
        let store = WorkItemStore(pool: pool, kind: .task)
        #expect(try world.request("DELETE", "/v1/tasks/\(scene.task)", as: .admin).status == 200)
        let realtor = Viewer(userID: try Self.uuid(world.id(.declarer)), isAdmin: false)
        #expect(throws: DomainError.self) { try pool.withTransaction { try store.restore(realtor, id: id, on: $0) } }
        let admin = Viewer(userID: try Self.uuid(world.id(.admin)), isAdmin: true)
        _ = try pool.withTransaction { try store.restore(admin, id: id, on: $0) }
        let task = try world.request("GET", "/v1/tasks/\(scene.task)", as: .declarer)
        #expect(task.json?["status"] as? String == "in_progress")
        #expect(task.json?["deleted_at"] is NSNull)
        #expect(try world.count("""
            SELECT count(*) FROM status_changes WHERE entity_id = \(id) AND old_status = 'deleted' AND new_status = 'in_progress'
            """) == 1)

        let listing = try Self.uuid(scene.listing)
        #expect(try world.request("DELETE", "/v1/listings/\(scene.listing)", as: .owner).status == 200)
        _ = try pool.withTransaction { try ListingStore(pool: pool).restore(admin, id: listing, on: $0) }
        #expect(try world.request("GET", "/v1/listings/\(scene.listing)", as: .owner).json?["status"] as? String == "draft")
    }

    @Test func officeFiltersNarrowTheAPIsList() throws {
        let world = try ResourceWorld()
        let pool = world.app.database.pool
        let (declarer, owner) = (try Self.uuid(world.id(.declarer)), try Self.uuid(world.id(.owner)))
        var ids: [String: UUID] = [:]
        for (name, priority, by, due, status) in [("urgentLate", "urgent", declarer, "now() - interval '1 day'", "open"),
                                                  ("urgentLater", "urgent", declarer, "now() + interval '1 day'", "open"),
                                                  ("lowLate", "low", owner, "now() - interval '1 day'", "in_progress"),
                                                  ("lateDone", "urgent", declarer, "now() - interval '1 day'", "completed")] {
            let id = UUID()
            ids[name] = id
            try pool.execute("""
                INSERT INTO tasks (id, title, priority, declared_by, due_date, status)
                VALUES (\(id), \(name), \(priority), \(by), \(unsafeSQL: due), \(status))
                """)
        }
        let store = WorkItemStore(pool: pool, kind: .task)
        let admin = Viewer(userID: try Self.uuid(world.id(.admin)), isAdmin: true)
        func found(_ change: (inout ListFilter) -> Void) throws -> Set<UUID> {
            var filter = ListFilter()
            change(&filter)
            return Set(try store.list(admin, filter).rows.compactMap { ConsoleDataStoreTests.id(in: $0) })
        }
        #expect(try found { $0.priorities = ["urgent"] } == Set([ids["urgentLate"], ids["urgentLater"], ids["lateDone"]].compactMap { $0 }))
        #expect(try found { $0.overdueAt = Date() } == Set([ids["urgentLate"], ids["lowLate"]].compactMap { $0 }))
        #expect(try found { $0.declaredBy = owner } == Set([ids["lowLate"]].compactMap { $0 }))
        #expect(try found { $0.overdueAt = Date(); $0.declaredBy = declarer; $0.priorities = ["urgent"] } == Set([ids["urgentLate"]].compactMap { $0 }))
    }

    static func id(in json: String) -> UUID? {
        ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any])?["id"].flatMap { ($0 as? String).flatMap(UUID.init) }
    }
}
