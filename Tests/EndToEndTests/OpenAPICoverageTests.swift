import API
import Accounts
import Resources
import Sync
import Realtime
import Supabase
import Operations
import RouteKit
import ServiceKit
import Foundation
import HTTP1
import HTTPServer
import Logging
import Mail
import Postgres
import Slack
import Testing

/// Every route the server registers is described in openapi.yaml, and nothing else is: the
/// description clients generate code from cannot drift from the router.
@Suite struct OpenAPICoverageTests {
    struct Operation: Hashable, CustomStringConvertible {
        var method: String
        var path: String
        var description: String { "\(method) \(path)" }
    }

    static let methods: Set = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `paths:` keys (two spaces) and their operation keys (four spaces), line by line.
    static func documentedOperations() throws -> Set<Operation> {
        let lines = try DeploymentFiles.text("openapi.yaml").split(separator: "\n")
        var operations: Set<Operation> = []
        var inPaths = false
        var currentPath: String?
        for line in lines {
            if !line.hasPrefix(" ") {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths, line.hasSuffix(":") else { continue }
            let key = String(line.dropLast().drop { $0 == " " })
            let indent = line.count - line.drop { $0 == " " }.count
            if indent == 2 {
                currentPath = key.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            } else if indent == 4, let currentPath, methods.contains(key) {
                operations.insert(Operation(method: key.uppercased(), path: currentPath))
            }
        }
        return operations
    }

    static func registeredOperations() throws -> Set<Operation> {
        // Never connected: building the router only stores the pool.
        let pool = PostgresPool(conninfo: "postgresql://127.0.0.1:1/unused", size: 1)
        let auth = try AuthService(pool: pool, jwtSecret: String(repeating: "k", count: 32), hasher: AuthTestServer.cheapHasher)
        var application = APIApplication(readiness: DeploymentFilesTests.AlwaysReady(), auth: auth, serverSecret: String(repeating: "c", count: 32))
        // As `serve` wires it: Slack's routes exist on every server (the integration is stored at run time).
        application.slack = SlackService(pool: pool, serverSecret: String(repeating: "k", count: 32),
                                         links: PublicLinks(baseURL: nil, redirectURLs: nil), logger: Logger(label: "openapi"))
        let router = application.makeRouter()
        // A rest-of-path parameter `{path...}` is an ordinary `{path}` to OpenAPI (its value may hold `/`).
        return Set(router.routes.map { Operation(method: $0.method.rawValue, path: $0.pattern.replacingOccurrences(of: "...}", with: "}")) })
    }

    @Test func documentParsesIntoOperations() throws {
        let documented = try Self.documentedOperations()
        #expect(documented.contains(Operation(method: "GET", path: "/healthz")))
        #expect(documented.contains(Operation(method: "POST", path: "/v1/auth/login")))
    }

    @Test func everyRegisteredRouteIsDocumented() throws {
        let missing = try Self.registeredOperations().subtracting(try Self.documentedOperations())
        #expect(missing == [], "registered but not in openapi.yaml: \(missing.map(\.description).sorted())")
    }

    @Test func everyDocumentedOperationIsRegistered() throws {
        let extra = try Self.documentedOperations().subtracting(try Self.registeredOperations())
        #expect(extra == [], "in openapi.yaml but not registered: \(extra.map(\.description).sorted())")
    }
}
