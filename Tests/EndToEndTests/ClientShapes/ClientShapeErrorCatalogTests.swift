@testable import API
@testable import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import Logging
@testable import Operations
@testable import Realtime
@testable import Resources
@testable import RouteKit
@testable import ServiceKit
@testable import Supabase
@testable import Sync
import Testing

/// Every error code the Supabase-compatible surface can emit, rendered by each family's real
/// renderer (`APIApplication.errorRenderer`, by the family's error style, the one every
/// request's errors go through) and decoded as supabase-swift 2.55.1 decodes that family's errors. The codes
/// are enumerated from the code — `ErrorCode.allCases` in every `DomainError.Kind`, with facts
/// and with field errors; `RestErrorCode.allCases`; `GoTrueErrorCode.allCases`;
/// `SupabaseGatewayCode.allCases`; `HTTPError`s with each of those and `ServerErrorCode.allCases`
/// and each shape of JSON details — so a code added to those enums is covered without editing this test. Rendering
/// is used instead of HTTP because most of these cannot be triggered cheaply (database
/// outages, timeouts, races); `ClientShapeRestTests` and its siblings trigger the common ones
/// over sockets.
@Suite struct ClientShapeErrorCatalogTests {
    static let context = RequestContext(requestID: "shape", logger: Logger(label: "shape", factory: { _ in SwiftLogNoOpLogHandler() }),
                                        remoteAddress: "127.0.0.1")

    /// Every domain error: each code in each kind, plus each code with facts and as a field problem.
    static var domainErrors: [DomainError] {
        ErrorCode.allCases.flatMap { code -> [DomainError] in
            DomainError.Kind.allCases.map { DomainError($0, code, "A \(code) refusal.", hint: "A hint.") } + [
                DomainError(.conflict, code, "With facts.",
                            details: ["claimed_by": .string(UUID().uuidString.lowercased()), "claimed_at": .string("2026-01-02T03:04:05.678Z"),
                                      "version": .integer(3), "key": .string("a key with spaces and \"quotes\"")]),
                .validation([FieldError(field: "title", code: code, message: "Bad title."),
                             FieldError(field: "odd field=name", code: code, message: "Bad.")]),
            ]
        }
    }

    /// The server's own errors as the gateway and routing throw them, with each shape of details.
    static var httpErrors: [HTTPError] {
        let details: [JSONValue?] = [nil, .string("text"), ["reasons": ["length"]], [["field": "a", "code": "b"]]]
        let codes = ErrorCode.allCases.map(\.rawValue) + ServerErrorCode.allCases.map(\.rawValue)
        return codes.flatMap { code in
            details.flatMap { detail in
                [HTTPStatus.unauthorized, .badRequest, .forbidden, .tooManyRequests, .serviceUnavailable].map {
                    HTTPError(status: $0, code: code, message: "A \(code) refusal.", details: detail)
                }
            }
        } + SupabaseGatewayCode.allCases.map { HTTPError(status: .unauthorized, code: $0.rawValue, message: "A key refusal.") }
          + [HTTPError.internalError, HTTPError.notFound()]
    }

    /// The codes `/auth/v1` routes throw themselves, as they throw them (weak_password with reasons).
    static var goTrueErrors: [HTTPError] {
        GoTrueErrorCode.allCases.map { code in
            HTTPError(status: code == .weakPassword ? .unprocessableContent : .badRequest, code: code.rawValue, message: "A \(code) refusal.",
                      details: code == .weakPassword ? ["reasons": ["length"]] : nil)
        }
    }

    static func render(_ error: any Error, _ family: SupabaseFamily) -> HTTPResponse {
        APIApplication.errorRenderer.response(for: error, style: family.errorStyle, context: context)
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func everyRestCodeDecodesAsPostgrestError() throws {
        let decoder = SupabaseSwiftDecoding.supabase()
        let own = RestErrorCode.allCases.map { RestError(status: .badRequest, code: $0, message: "m", details: "d", hint: "h") }
        let errors: [any Error] = Self.domainErrors + Self.httpErrors + own
        for error in errors {
            let response = Self.render(error, .rest)
            let decoded = try #require(try? decoder.decode(PostgrestErrorMirror.self, from: Data(response.body)),
                                       "\(error) → \(Self.text(response))")
            #expect(decoded.code?.isEmpty == false)
            // PostgREST's four keys are always present; extras never replace them.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(["code", "message", "details", "hint"].allSatisfy(object.keys.contains), "\(Self.text(response))")
            guard let domain = error as? DomainError else { continue }
            // Two domain refusals take PostgreSQL's codes, which PostgREST clients test for.
            let expected = domain.code == .idConflict ? "23505" : domain.kind == .forbidden ? "42501" : domain.code.rawValue
            #expect(decoded.code == expected)
            if !domain.fields.isEmpty {
                let field = domain.fields[0].code
                #expect(decoded.details == "title=\(field) \"odd field=name\"=\(field)")
                #expect((object["errors"] as? [[String: String]])?.map { $0["field"] } == ["title", "odd field=name"])
            } else if !domain.details.isEmpty {
                let holder = domain.details["claimed_by"].flatMap { if case .string(let id) = $0 { id } else { nil } } ?? ""
                #expect(decoded.details == "claimed_at=2026-01-02T03:04:05.678Z claimed_by=\(holder) "
                        + #"key="a key with spaces and \"quotes\"" version=3"#)
                #expect(object["claimed_by"] as? String == holder && object["version"] as? Int == 3)
            }
        }
    }

    @Test func everyAuthCodeDecodesAsTheClientsAPIError() throws {
        let decoder = SupabaseSwiftDecoding.auth()
        for error in Self.domainErrors as [any Error] + Self.httpErrors {
            let response = Self.render(error, .auth)
            let decoded = try #require(try? decoder.decode(AuthMirrors.RawAPIErrorResponse.self, from: Data(response.body)),
                                       "\(error) → \(Self.text(response))")
            // The client reads `code` as the error code only with this header (2024-01-01 or later).
            #expect(response.headers["X-Supabase-Api-Version"] == "2024-01-01")
            #expect(decoded.code?.isEmpty == false && decoded.errorMessage != "Unknown", "\(Self.text(response))")
        }
        for error in Self.goTrueErrors {
            let response = Self.render(error, .auth)
            let decoded = try #require(try? decoder.decode(AuthMirrors.RawAPIErrorResponse.self, from: Data(response.body)),
                                       "\(error) → \(Self.text(response))")
            #expect(decoded.code == error.code && response.headers["X-Supabase-Api-Version"] == "2024-01-01")
            // The client builds `AuthError.weakPassword(reasons:)` from this key.
            #expect((decoded.weakPassword?.reasons ?? []) == (error.code == GoTrueErrorCode.weakPassword.rawValue ? ["length"] : []))
        }
    }

    @Test func everyStorageCodeDecodesAsStorageError() throws {
        let decoder = SupabaseSwiftDecoding.supabase()
        for error in Self.domainErrors as [any Error] + Self.httpErrors {
            let response = Self.render(error, .storage)
            let decoded = try #require(try? decoder.decode(StorageMirrors.StorageError.self, from: Data(response.body)),
                                       "\(error) → \(Self.text(response))")
            #expect(decoded.error?.isEmpty == false)
            #expect(decoded.statusCode == String(response.status.code) || decoded.error == "Duplicate", "\(Self.text(response))")
        }
    }

    /// A refused socket: supabase-swift only sees the failed upgrade, but the body is Supabase
    /// Realtime's `{"error": "<message>"}` for anyone reading it.
    @Test func everyRealtimeRefusalIsSupabaseRealtimesErrorObject() throws {
        for error in Self.domainErrors as [any Error] + Self.httpErrors {
            let response = Self.render(error, .realtime)
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(object?.keys.sorted() == ["error"] && (object?["error"] as? String)?.isEmpty == false, "\(Self.text(response))")
        }
    }
}
