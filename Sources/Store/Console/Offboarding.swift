import Domain
import Foundation
import Postgres

/// Off-boarding in one action: a leaving user's open claims are released or handed
/// to a colleague, and their listings (owned or staffed) handed over, in ONE transaction,
/// through the stores the API uses: `WorkItemStore.release` / `reassign` (claim events with
/// the admin as actor) and `ListingStore.modify` (owner changes; the access triggers record
/// the grants and revocations, so every phone hears of it through the sync feed). Either all
/// of it happens or none.
///
/// Decisions: only open and in-progress items' claims move. A completed or deleted item keeps
/// its claimer as the record of who did the work (and cannot be claimed anew, contract §3).
/// Listings are handed over whatever their status (a closed listing still needs an owner),
/// except deleted ones, which no write may change (`StatusRules`) and keep their history.
/// Deactivating the account is a separate step (People), so an admin can off-board first and
/// check the result. Their push devices are removed with the rest.
public struct Offboarding: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public struct Result: Sendable, Equatable {
        public var released = 0
        public var reassigned = 0
        public var listingsOwned = 0
        public var listingsStaffed = 0
    }

    /// What `run` would move, for the confirmation page.
    public func preview(user: UUID) throws -> (claims: Int, owned: Int, staffed: Int) {
        guard let row = try pool.query("""
            SELECT (SELECT count(*) FROM tasks WHERE claimed_by = \(user) AND status IN ('open', 'in_progress'))
                 + (SELECT count(*) FROM activities WHERE claimed_by = \(user) AND status IN ('open', 'in_progress')) AS claims,
                   (SELECT count(*) FROM listings WHERE owned_by = \(user) AND status <> 'deleted') AS owned,
                   (SELECT count(*) FROM listings WHERE assigned_staff = \(user) AND status <> 'deleted') AS staffed
            """).first else { return (0, 0, 0) }
        return (try row.decode("claims"), try row.decode("owned"), try row.decode("staffed"))
    }

    /// Moves everything of `user` as the administrator `admin`: claims to `claimsTo` (nil:
    /// released), listings they own to `listingsTo`, and their staff assignments to
    /// `listingsTo` (cleared where `listingsTo` already owns the listing).
    public func run(_ admin: Viewer, user: UUID, claimsTo: UUID?, listingsTo: UUID) throws -> Result {
        guard admin.isAdmin else { throw DomainError.forbidden("Only administrators may off-board a user.") }
        guard user != listingsTo, user != claimsTo else {
            throw DomainError.validation(field: "to", code: .invalidValue, message: "Choose someone other than the person leaving.")
        }
        return try pool.withTransaction { connection in
            var result = Result()
            for kind in WorkItemKind.allCases {
                let store = WorkItemStore(pool: pool, kind: kind)
                for id in try ids("SELECT id FROM \(unsafeSQL: kind.table) WHERE claimed_by = \(user) AND status IN ('open', 'in_progress') ORDER BY id",
                                  on: connection) {
                    if let claimsTo {
                        _ = try store.reassign(admin, id: id, to: claimsTo, on: connection)
                        result.reassigned += 1
                    } else {
                        _ = try store.release(admin, id: id, on: connection)
                        result.released += 1
                    }
                }
            }
            let listings = ListingStore(pool: pool)
            for listing in try held(by: user, on: connection) {
                var input = ListingInput.listing()
                let owner = listing.owner == user ? listingsTo : listing.owner
                if listing.owner == user {
                    input.set("owned_by", .uuid(listingsTo))
                    result.listingsOwned += 1
                }
                // The new owner needs no staff assignment to themself (also when they were the staff).
                if listing.staff == user || (listing.owner == user && listing.staff == listingsTo) {
                    input.set("assigned_staff", owner == listingsTo ? .null : .uuid(listingsTo))
                }
                if listing.staff == user { result.listingsStaffed += 1 }
                _ = try listings.modify(connection, admin, id: listing.id, input: input, patch: true, check: .none)
            }
            // A leaving person's phones stop being woken: their work is no longer theirs.
            try PushDeviceStore(pool: pool).removeAll(user: user, on: connection)
            return result
        }
    }

    private func ids(_ query: PostgresQuery, on connection: PostgresConnection) throws -> [UUID] {
        try connection.query(query).map { try $0.decode("id") }
    }

    /// The listings `user` owns or staffs, locked, in id order (two off-boardings at once take
    /// their locks in one order).
    private func held(by user: UUID, on connection: PostgresConnection) throws -> [(id: UUID, owner: UUID, staff: UUID?)] {
        try connection.query("""
            SELECT id, owned_by, assigned_staff FROM listings
            WHERE (owned_by = \(user) OR assigned_staff = \(user)) AND status <> 'deleted'
            ORDER BY id FOR UPDATE
            """).map { (try $0.decode("id"), try $0.decode("owned_by"), try $0.decode("assigned_staff")) }
    }
}
