import Foundation
import Postgres
import Testing

/// `/rest/v1` write requests against a `ResourceWorld`, with the public-key header the official
/// clients send, and reads of the database to check what a request changed (or did not).
struct RestWriteWorld {
    let world: ResourceWorld

    init(extraRoles: [ResourceWorld.Role] = ResourceWorld.Role.allCases) throws {
        world = try ResourceWorld(extraRoles: extraRoles)
    }

    /// `method /rest/v1/<path>` as `role` (nil: anonymous) with `body` (any JSON value).
    func send(_ method: String, _ path: String, as role: ResourceWorld.Role?, body: Any? = nil,
              prefer: [String] = [], headers: [String: String] = [:]) throws -> TestHTTPClient.Response {
        var headers = headers
        headers["apikey"] = AuthTestServer.publishableKey
        headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        for (index, value) in prefer.enumerated() { headers[index == 0 ? "Prefer" : "prefer"] = value }
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0, options: [.fragmentsAllowed])) } ?? []
        return try world.app.request(method, "/rest/v1/" + path, token: role.map { world.token($0) }, body: bytes,
                                     headers: headers)
    }

    /// One integer from the database.
    func count(_ query: PostgresQuery) throws -> Int {
        try world.app.database.pool.query(query).first?.decode(0, as: Int.self) ?? -1
    }

    func text(_ query: PostgresQuery) throws -> String? {
        try world.app.database.pool.query(query).first?.decode(0, as: String?.self) ?? nil
    }

    static func array(_ response: TestHTTPClient.Response) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] ?? []
    }

    static func body(_ response: TestHTTPClient.Response) -> String { String(decoding: response.body, as: UTF8.self) }
}
