import Foundation
import Postgres
import Testing
import TestSupport

/// The access records a new task or activity writes (`0027_write_triggers_once.sql`: its own
/// insert trigger since then): a listing grant for the declarer and the claimer, except those
/// who see the listing anyway as its owner or staff; nothing for an item without a listing.
/// The expected rows are those the insert-or-update trigger of 0018 wrote for the same inserts.
@Suite struct WorkItemInsertAccessTests {
    struct Record: Hashable, CustomStringConvertible {
        var user: UUID
        var listing: UUID
        var description: String { "\(user) on \(listing)" }
    }

    @Test func newItemsRecordListingGrantsForDeclarerAndClaimerOutsideTheStaff() throws {
        let database = try TestDatabase.create()
        let pool = database.pool
        var people: [UUID] = []
        for name in ["owner", "staff", "first", "second"] {
            people.append(try #require(try pool.query("""
                INSERT INTO users (name, email) VALUES (\(name), \(name + "@x.io")) RETURNING id
                """).first).decode("id", as: UUID.self))
        }
        let (owner, staff, first, second) = (people[0], people[1], people[2], people[3])
        let staffed = UUID(), ownerOnly = UUID()
        try pool.execute("INSERT INTO listings (id, address, owned_by, assigned_staff) VALUES (\(staffed), '1 Main St', \(owner), \(staff))")
        try pool.execute("INSERT INTO listings (id, address, owned_by) VALUES (\(ownerOnly), '2 Side St', \(owner))")
        try pool.execute("DELETE FROM sync_access_changes")

        func insert(_ table: String, declaredBy: UUID, claimedBy: UUID? = nil, listing: UUID?) throws {
            try pool.execute("""
                INSERT INTO \(unsafeSQL: table) (title, declared_by, claimed_by, claimed_at, listing_id)
                VALUES ('item', \(declaredBy), \(claimedBy), CASE WHEN \(claimedBy)::uuid IS NULL THEN NULL ELSE now() END, \(listing))
                """)
        }
        try insert("tasks", declaredBy: owner, listing: staffed)                      // the owner: nothing
        try insert("tasks", declaredBy: staff, claimedBy: owner, listing: staffed)    // staff and owner: nothing
        try insert("tasks", declaredBy: first, claimedBy: staff, listing: staffed)    // first only
        try insert("tasks", declaredBy: second, claimedBy: second, listing: staffed)  // second, once
        try insert("tasks", declaredBy: first, claimedBy: second, listing: ownerOnly) // both (no staff: a NULL)
        try insert("tasks", declaredBy: second, listing: nil)                         // no listing: nothing
        try insert("activities", declaredBy: second, claimedBy: owner, listing: staffed) // second only
        try insert("activities", declaredBy: first, listing: nil)                     // nothing

        let rows = try pool.query("SELECT user_id, entity_type, entity_id, granted FROM sync_access_changes")
        var records: [Record] = []
        for row in rows {
            #expect(try row.decode("entity_type", as: String.self) == "listing")
            #expect(try row.decode("granted", as: Bool.self))
            records.append(Record(user: try row.decode("user_id"), listing: try row.decode("entity_id")))
        }
        let expected = [Record(user: first, listing: staffed), Record(user: second, listing: staffed),
                        Record(user: first, listing: ownerOnly), Record(user: second, listing: ownerOnly),
                        Record(user: second, listing: staffed)]
        #expect(records.sorted { $0.description < $1.description } == expected.sorted { $0.description < $1.description })
    }
}
