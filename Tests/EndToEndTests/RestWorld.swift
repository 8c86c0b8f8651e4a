import Foundation
import Postgres
import Testing

/// A `ResourceWorld` with tasks made for `/rest/v1` reads: five tasks the owner declared on
/// their listing, with distinct titles, priorities, due dates (one missing) and descriptions
/// (two missing), inserted with SQL so each case starts from a known state.
final class RestWorld {
    let world: ResourceWorld
    let listing: String
    /// title → id.
    private(set) var tasks: [String: String] = [:]

    static let rows: [(title: String, priority: String, due: String?, description: String?)] = [
        ("Alpha", "low", "2026-01-01T09:00:00Z", "call, then email"),
        ("Bravo", "medium", "2026-01-02T09:00:00Z", nil),
        ("Charlie", "high", nil, "photos"),
        ("Delta", "urgent", "2026-01-04T09:00:00Z", nil),
        ("Echo", "medium", "2026-01-05T09:00:00Z", "sign (twice)"),
    ]

    init() throws {
        world = try ResourceWorld(extraRoles: [.owner, .stranger])
        listing = UUID().uuidString.lowercased()
        let owner = world.id(.owner)
        var tasks: [String: String] = [:]
        try world.app.database.pool.withTransaction { connection in
            try connection.execute("INSERT INTO listings (id, address, owned_by) VALUES (\(listing)::uuid, '1 Main St', \(owner)::uuid)")
            for row in Self.rows {
                let id = UUID().uuidString.lowercased()
                tasks[row.title] = id
                try connection.execute("""
                    INSERT INTO tasks (id, title, description, priority, due_date, declared_by, listing_id)
                    VALUES (\(id)::uuid, \(row.title), \(row.description), \(row.priority), \(row.due)::timestamptz,
                            \(owner)::uuid, \(listing)::uuid)
                    """)
            }
        }
        self.tasks = tasks
    }

    func id(_ title: String) -> String { tasks[title] ?? "" }

    /// A `/rest/v1` request as `role`, with the public-key header the Swift client sends.
    func get(_ path: String, as role: ResourceWorld.Role = .owner, method: String = "GET",
             headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        var headers = headers
        if headers.keys.allSatisfy({ $0.lowercased() != "apikey" }) { headers["apikey"] = AuthTestServer.publishableKey }
        return try world.app.request(method, "/rest/v1/" + path.replacingOccurrences(of: " ", with: "%20"), token: world.token(role), headers: headers)
    }

    /// The titles of the rows in a response, in order.
    func titles(_ path: String, as role: ResourceWorld.Role = .owner, headers: [String: String] = [:]) throws -> [String] {
        let response = try get(path, as: role, headers: headers)
        #expect(response.status == 200 || response.status == 206, "\(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        return Self.array(response).compactMap { $0["title"] as? String }
    }

    /// The JSON array of a response, chunked or not.
    static func array(_ response: TestHTTPClient.Response) -> [[String: Any]] {
        let body = response.header("Transfer-Encoding") == "chunked" ? (dechunk(response.body)?.body ?? []) : response.body
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? []
    }

    /// Decodes a chunked body; `complete` says whether the last chunk arrived. nil when malformed.
    static func dechunk(_ bytes: [UInt8]) -> (body: [UInt8], complete: Bool)? {
        var body: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<(bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16)
            else { return nil }
            if size == 0 { return (body, true) }
            let start = lineEnd + 2
            guard start + size + 2 <= bytes.count else { return (body + bytes[start...], false) }
            body += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return (body, false)
    }

    static func code(_ response: TestHTTPClient.Response) -> String? { response.json?["code"] as? String }
}
