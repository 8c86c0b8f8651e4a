import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Credentials
import Domain
import Foundation
import Postgres
import Testing

/// A server with one user per contract §2 relationship, signed in, and helpers to build scenes
/// (a listing with a task and an activity on it) directly in SQL, so each case starts from a
/// known state without depending on the routes under test.
final class ResourceWorld {
    enum Role: String, CaseIterable, CustomTestStringConvertible {
        case admin, owner, staff, declarer, claimer, stranger
        var testDescription: String { rawValue }
    }

    /// A listing owned by `owner`, staffed by `staff`; a task and an activity on it declared by
    /// `declarer` and claimed by `claimer`.
    struct Scene {
        var listing: String
        var task: String
        var activity: String
    }

    let app: AuthTestServer
    private(set) var ids: [Role: String] = [:]
    private(set) var tokens: [Role: String] = [:]

    init(extraRoles: [Role] = Role.allCases, listPaging: ListPaging = ListPaging(), workerCount: Int = 4,
         withConsole: Bool = false) throws {
        app = try AuthTestServer(listPaging: listPaging, workerCount: workerCount, withConsole: withConsole)
        ids[.admin] = app.admin.id.uuidString.lowercased()
        tokens[.admin] = try app.login().access
        for role in extraRoles where role != .admin {
            let email = "\(role.rawValue)@example.com"
            let user = try app.auth.users.create(email: email, name: role.rawValue.capitalized, userType: .realtor,
                                                 passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
            ids[role] = user.id.uuidString.lowercased()
            tokens[role] = try app.login(email).access
        }
    }

    func id(_ role: Role) -> String { ids[role] ?? "" }
    func token(_ role: Role) -> String { tokens[role] ?? "" }

    /// A fresh scene, inserted with SQL.
    func scene(taskStatus: String = "open", claimed: Bool = true) throws -> Scene {
        let listing = UUID().uuidString.lowercased()
        let task = UUID().uuidString.lowercased()
        let activity = UUID().uuidString.lowercased()
        let claimer: String? = claimed ? id(.claimer) : nil
        try app.database.pool.withTransaction { connection in
            try connection.execute("""
                INSERT INTO listings (id, address, owned_by, assigned_staff)
                VALUES (\(listing)::uuid, '1 Main St', \(id(.owner))::uuid, \(id(.staff))::uuid)
                """)
            for table in ["tasks", "activities"] {
                let itemID = table == "tasks" ? task : activity
                try connection.execute("""
                    INSERT INTO \(unsafeSQL: table) (id, title, status, declared_by, claimed_by, claimed_at, listing_id)
                    VALUES (\(itemID)::uuid, 'Call the buyer', \(taskStatus), \(id(.declarer))::uuid, \(claimer)::uuid,
                            CASE WHEN \(claimer)::uuid IS NULL THEN NULL ELSE now() END, \(listing)::uuid)
                    """)
            }
        }
        return Scene(listing: listing, task: task, activity: activity)
    }

    func request(_ method: String, _ path: String, as role: Role, json: [String: Any]? = nil,
                 headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        try app.request(method, path, token: token(role), json: json, headers: headers)
    }

    /// The ids in a list response.
    static func ids(in response: TestHTTPClient.Response) -> [String] {
        ((response.json?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    static func fields(in response: TestHTTPClient.Response) -> Set<String> {
        Set(((response.json?["details"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
    }

    func count(_ sql: PostgresQuery) throws -> Int {
        try app.database.pool.query(sql).first?.decode(0, as: Int.self) ?? -1
    }
}

extension ResourceWorld {
    /// `count` distinct admins (admins see every task, so all of them may compete for one),
    /// each with a signed token: the claimers of the race tests.
    func adminClaimers(_ count: Int, emailPrefix: String) throws -> [(id: String, token: String)] {
        try (0..<count).map { index in
            let user = try app.auth.users.create(email: "\(emailPrefix)\(index)@example.com", name: "Claimer \(index)",
                                                 userType: .admin, passwordHash: "unused")
            return (user.id.uuidString.lowercased(), try signedToken(for: user.id))
        }
    }

    /// An access token for `userID` without signing in (no password hashing): the race test
    /// needs many distinct users.
    func signedToken(for userID: UUID) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return try app.auth.signer.sign(AccessTokenClaims(sub: userID.uuidString.lowercased(), iat: now, exp: now + 900,
                                                          sid: UUID().uuidString.lowercased()))
    }
}
