import Domain
import Foundation
import Postgres
import Store
import Testing

/// The console's "Explain access": over random listings, tasks and activities
/// (seeded, so a failure replays), for every user and row, the explainer's verdict (the API's
/// one-row predicate), its explanation (the OR of the clauses it lists), the pure rules of
/// `Domain.AccessRules` and the API's actual answer to `GET /v1/{r}/{id}` as that user all agree.
@Suite struct AccessExplainerTests {
    typealias Role = ResourceWorld.Role
    typealias Entity = AccessExplanation.Entity

    /// The parties of one random row, as inserted.
    struct Row {
        var entity: Entity
        var id: UUID
        var first: UUID
        var second: UUID?
        var listing: UUID?
    }

    @Test(arguments: [UInt64(26), 2026])
    func verdictExplanationRulesAndAPIAgreeOverRandomData(seed: UInt64) throws {
        let world = try ResourceWorld()
        var random = SyncConvergenceTests.SplitMix(state: seed)
        let realtors = Role.allCases.filter { $0 != .admin }.compactMap { UUID(uuidString: world.id($0)) }
        var rows: [Row] = []
        try world.app.database.pool.withTransaction { connection in
            for _ in 0..<6 {
                let row = Row(entity: .listing, id: UUID(), first: realtors.randomElement(using: &random) ?? UUID(),
                              second: Bool.random(using: &random) ? realtors.randomElement(using: &random) : nil)
                try connection.execute("""
                    INSERT INTO listings (id, address, owned_by, assigned_staff) VALUES (\(row.id), '1 Main St', \(row.first), \(row.second))
                    """)
                rows.append(row)
            }
            let listings = rows.map(\.id)
            for entity in [Entity.task, .task, .activity] {
                for _ in 0..<4 {
                    let row = Row(entity: entity, id: UUID(), first: realtors.randomElement(using: &random) ?? UUID(),
                                  second: Bool.random(using: &random) ? realtors.randomElement(using: &random) : nil,
                                  listing: Int.random(in: 0..<4, using: &random) > 0 ? listings.randomElement(using: &random) : nil)
                    try connection.execute("""
                        INSERT INTO \(unsafeSQL: entity.table) (id, title, declared_by, claimed_by, claimed_at, listing_id)
                        VALUES (\(row.id), 'Call the buyer', \(row.first), \(row.second),
                                CASE WHEN \(row.second)::uuid IS NULL THEN NULL ELSE now() END, \(row.listing))
                        """)
                    rows.append(row)
                }
            }
        }
        let explainer = AccessExplainer(pool: world.app.database.pool)
        let parties = Dictionary(uniqueKeysWithValues: rows.filter { $0.entity == .listing }.map {
            ($0.id, AccessRules.ListingParties(ownedBy: $0.first, assignedStaff: $0.second))
        })
        var seen = 0
        for role in Role.allCases {
            guard let user = UUID(uuidString: world.id(role)) else { Issue.record("no id for \(role)"); continue }
            for row in rows {
                let explanation = try explainer.explain(userID: user, entity: row.entity, id: row.id)
                let path = "/v1/\(row.entity.table)/\(row.id.uuidString.lowercased())"
                let status = try world.request("GET", path, as: role).status
                let context = Comment(rawValue: "seed \(seed), \(role) on \(row.entity) \(row.id)")
                #expect(explanation.sees == !explanation.reasons.isEmpty, context)
                #expect((status == 200) == explanation.sees, context)
                #expect(status == 200 || status == 404, context)
                let actor = AccessRules.Actor(userID: user, isAdmin: role == .admin)
                let rules: Bool
                if row.entity == .listing {
                    let ownItem = rows.contains { $0.entity != .listing && $0.listing == row.id && (user == $0.first || user == $0.second) }
                    rules = AccessRules.canSeeListing(actor, AccessRules.ListingParties(ownedBy: row.first, assignedStaff: row.second),
                                                      hasOwnWorkItemOnIt: ownItem)
                } else {
                    rules = AccessRules.canSeeWorkItem(actor, .init(declaredBy: row.first, claimedBy: row.second,
                                                                    listing: row.listing.flatMap { parties[$0] }))
                }
                #expect(rules == explanation.sees, context)
                if explanation.sees { seen += 1 }
            }
        }
        // Random data that made every answer the same would prove nothing.
        #expect(seen > rows.count && seen < rows.count * Role.allCases.count, "seed \(seed): \(seen) visible pairs")
    }

    /// The history of a pair: a listing handed to someone else is revoked from the old owner
    /// and granted to the new one; a claim released by an admin is the claimer's `released`
    /// event with the admin as actor, and a revocation of the task.
    @Test func historyShowsGrantsRevocationsAndClaimEventsOfThePair() throws {
        let world = try ResourceWorld()
        let scene = try world.scene()
        let listing = try #require(UUID(uuidString: scene.listing))
        let task = try #require(UUID(uuidString: scene.task))
        let owner = try #require(UUID(uuidString: world.id(.owner)))
        let stranger = try #require(UUID(uuidString: world.id(.stranger)))
        let claimer = try #require(UUID(uuidString: world.id(.claimer)))
        let admin = try #require(UUID(uuidString: world.id(.admin)))
        let explainer = AccessExplainer(pool: world.app.database.pool)

        #expect(try world.request("PATCH", "/v1/listings/\(scene.listing)", as: .owner, json: ["owned_by": world.id(.stranger)]).status == 200)
        let old = try explainer.explain(userID: owner, entity: .listing, id: listing)
        // A row's creation grants nothing (the row itself is new to the feed); the hand-over does.
        #expect(old.history.map(\.kind) == [.revoked])
        #expect(old.reasons.isEmpty && !old.sees)
        let new = try explainer.explain(userID: stranger, entity: .listing, id: listing)
        #expect(new.history.map(\.kind) == [.granted])
        #expect(new.reasons.map(\.kind) == [.listingOwner])

        #expect(try world.request("DELETE", "/v1/tasks/\(scene.task)/claim", as: .admin).status == 200)
        let released = try explainer.explain(userID: claimer, entity: .task, id: task)
        // Same transaction, same time: the claim event (the cause) before the revocation.
        #expect(released.history.suffix(2).map(\.kind) == [.released, .revoked])
        #expect(released.history.first { $0.kind == .released }?.actor == admin)
        #expect(!released.sees)
        #expect(try world.request("GET", "/v1/tasks/\(scene.task)", as: .claimer).status == 404)

        #expect(throws: DomainError.self) { try explainer.explain(userID: UUID(), entity: .task, id: task) }
        #expect(throws: DomainError.self) { try explainer.explain(userID: owner, entity: .task, id: UUID()) }
    }
}
