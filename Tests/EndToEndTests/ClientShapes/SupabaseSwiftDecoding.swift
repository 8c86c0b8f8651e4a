import Foundation
import HTTPServer
import Testing

/// How supabase-swift 2.55.1 decodes what it receives, copied from its source so the
/// client-shape tests decode server answers exactly as the app's client does:
/// - `Sources/Helpers/Codable.swift` `JSONDecoder.supabase()`: dates through a custom strategy
///   (`Sources/Helpers/DateFormatter.swift` `String.date`: ISO 8601 with fractional seconds,
///   else without; anything else throws);
/// - `Sources/Auth/Defaults.swift`: Auth adds `.convertFromSnakeCase`;
/// - PostgREST (`Sources/PostgREST/Defaults.swift`), Storage (`Sources/Storage/Codable.swift`)
///   and `AnyJSON.decoder` (`Sources/Helpers/AnyJSON/AnyJSON+Codable.swift`, which Realtime's
///   `postgres_changes` payload goes through) use `supabase()` as it is.
/// `JSONValue` stands in for the client's `AnyJSON` (both decode any JSON value).
enum SupabaseSwiftDecoding {
    static func supabase() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let string = try container.decode(String.self)
            if let date = date(string) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Invalid date format: \(string)")
        }
        return decoder
    }

    static func auth() -> JSONDecoder {
        let decoder = supabase()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// `String.date` of `Sources/Helpers/DateFormatter.swift`.
    static func date(_ string: String) -> Date? {
        if let date = try? Date(string, strategy: .iso8601.currentTimestamp(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(string, strategy: .iso8601.currentTimestamp(includingFractionalSeconds: false))
    }

    /// A response body decoded as `type`; a body that does not decode is a recorded issue
    /// naming the route, the status and the body, then the error is rethrown.
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestHTTPClient.Response, _ label: String,
                                     with decoder: JSONDecoder) throws -> T {
        do {
            return try decoder.decode(type, from: Data(response.body))
        } catch {
            Issue.record("\(label): \(response.status) does not decode as \(type) (\(error)): \(String(decoding: response.body, as: UTF8.self))")
            throw error
        }
    }

    /// UUIDs compare case-insensitively: the client parses them (`UUID`), the server writes
    /// lower case, the app may send upper case.
    static func sameUUID(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b, let left = UUID(uuidString: a), let right = UUID(uuidString: b) else { return false }
        return left == right
    }
}

private extension Date.ISO8601FormatStyle {
    /// `currentTimestamp(includingFractionalSeconds:)` of `Sources/Helpers/DateFormatter.swift`.
    func currentTimestamp(includingFractionalSeconds: Bool) -> Self {
        year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: includingFractionalSeconds)
    }
}
