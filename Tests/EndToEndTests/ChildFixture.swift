import Foundation
import Postgres
import Testing

/// A server with one listing, a task and an activity on it, and a user per contract §2
/// relationship, each signed in. Parents are plain SQL inserts: the parents' own API is built
/// separately, and these tests are about their children.
final class ChildFixture {
    enum Role: String, CaseIterable, CustomStringConvertible {
        case admin, declarer, claimer, owner, staff, stranger
        /// Wrote a note on the parent once but no longer sees the parent (e.g. a released claim).
        case formerAuthor
        var description: String { rawValue }
    }

    let app: AuthTestServer
    private(set) var tokens: [Role: String] = [:]
    private(set) var userIDs: [Role: UUID] = [:]
    let listingID = UUID()
    let taskID = UUID()
    let activityID = UUID()
    /// A task only the stranger sees, so its children must never show up for anyone else.
    let strangersTaskID = UUID()

    init() throws {
        app = try AuthTestServer()
        tokens[.admin] = try app.login().access
        userIDs[.admin] = app.admin.id
        for role in Role.allCases where role != .admin {
            let email = "\(role.rawValue)@example.com"
            let user = try app.auth.users.create(email: email, name: role.rawValue.capitalized, userType: .realtor,
                                                 passwordHash: try AuthTestServer.cheapHasher.hash(AuthTestServer.password))
            userIDs[role] = user.id
            tokens[role] = try app.login(email).access
        }
        let pool = app.database.pool
        try pool.execute("""
            INSERT INTO listings (id, address, owned_by, assigned_staff)
            VALUES (\(listingID), '1 Main St', \(id(.owner)), \(id(.staff)))
            """)
        for table in ["tasks", "activities"] {
            let itemID = table == "tasks" ? taskID : activityID
            try pool.execute("""
                INSERT INTO \(unsafeSQL: table) (id, title, declared_by, claimed_by, claimed_at, listing_id)
                VALUES (\(itemID), 'Call the buyer', \(id(.declarer)), \(id(.claimer)), now(), \(listingID))
                """)
        }
        try pool.execute("INSERT INTO tasks (id, title, declared_by) VALUES (\(strangersTaskID), 'Private', \(id(.stranger)))")
    }

    func id(_ role: Role) -> UUID { userIDs[role] ?? UUID() }
    func token(_ role: Role) -> String { tokens[role] ?? "" }

    func parentID(_ type: String) -> UUID {
        switch type {
        case "task": taskID
        case "activity": activityID
        default: listingID
        }
    }

    /// Inserts a note directly (bypassing the API's rules, e.g. for a former author).
    @discardableResult
    func insertNote(parentType: String, parentID: UUID, author: Role, content: String = "A note") throws -> UUID {
        let noteID = UUID()
        try app.database.pool.execute("""
            INSERT INTO notes (id, content, created_by, parent_type, parent_id)
            VALUES (\(noteID), \(content), \(id(author)), \(parentType), \(parentID))
            """)
        return noteID
    }

    @discardableResult
    func insertSubtask(parentType: String, parentID: UUID, title: String = "A subtask", position: Int = 0) throws -> UUID {
        let subtaskID = UUID()
        try app.database.pool.execute("""
            INSERT INTO subtasks (id, title, parent_type, parent_id, position)
            VALUES (\(subtaskID), \(title), \(parentType), \(parentID), \(position))
            """)
        return subtaskID
    }

    /// Soft-deletes a parent the way the parents' API does (status and deleted_at).
    func deleteParent(_ type: String) throws {
        let table = type == "task" ? "tasks" : type == "activity" ? "activities" : "listings"
        try app.database.pool.execute("""
            UPDATE \(unsafeSQL: table) SET status = 'deleted', deleted_at = now() WHERE id = \(parentID(type))
            """)
    }

    func request(_ role: Role, _ method: String, _ path: String, json: [String: Any]? = nil,
                 headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        try app.request(method, path, token: token(role), json: json, headers: headers)
    }
}

extension UUID {
    var apiString: String { uuidString.lowercased() }
}

extension TestHTTPClient.Response {
    /// The `field` of each `details` entry of a 422, in order.
    var detailFields: [String] {
        ((json?["details"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String }
    }

    var apiErrorCode: String? { json?["code"] as? String }

    var listedIDs: [String] {
        ((json?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
