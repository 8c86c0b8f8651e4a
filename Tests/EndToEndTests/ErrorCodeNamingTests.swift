import Foundation
import Testing

/// Error codes are named once (`ErrorCode`) and rendered in one place (`APIErrorRenderer`):
/// a code written as a string literal in a handler or store, or a handler mapping errors
/// itself, fails here.
@Suite struct ErrorCodeNamingTests {
    /// Files whose codes are named (`ErrorCode`) but that still build `HTTPError`s, because
    /// their answers carry headers or statuses `DomainError` does not model (401 challenges,
    /// 429 `Retry-After`, a deferred sync answer's 410).
    static let buildHTTPErrors: Set<String> = [
        "AuthMiddleware.swift", "AuthRoutes.swift", "AuthRoutes+Passwords.swift", "AuthService.swift",
        "AuthService+SignIn.swift", "AuthService+Caller.swift", "SyncService.swift", "SyncWaiters.swift",
    ]

    /// The Supabase-compatible families answer their own codes in their own shapes: GoTrue's
    /// (`/auth/v1`, GoTrueErrorRenderer) and PostgREST's (`/rest/v1`, `PGRST…`: RestError,
    /// RestErrorMapping), each one case of `APIErrorRenderer`'s style switch.
    static let exempt: Set<String> = [
        "GoTrueRoutes.swift", "GoTrueUserUpdate.swift", "GoTrueErrorRenderer.swift", "SupabaseGateway.swift",
        "RestError.swift", "RestErrorMapping.swift", "RestFilterParser.swift",
    ]

    /// Folders of the Supabase-compatible families, which answer in their own wire shapes.
    static let exemptFolders = ["Routes/PostgREST/", "Routes/GoTrue/", "Routes/Storage/"]

    /// The modules with handlers, services, stores or rules: every capability and the kits.
    static let serverModules = ["API", "Accounts", "Resources", "Sync", "Realtime", "Supabase", "Operations", "Mail",
                                "RouteKit", "ServiceKit"]

    static func sources(in directories: [String]) throws -> [(name: String, text: String)] {
        let found = try directories.flatMap { directory in
            let path = ProjectPaths.root + "/Sources/" + directory
            let names = try FileManager.default.subpathsOfDirectory(atPath: path).filter { name in
                name.hasSuffix(".swift") && !exemptFolders.contains { name.hasPrefix($0) }
            }
            return try names.map { (name: $0, text: try String(contentsOfFile: path + "/" + $0, encoding: .utf8)) }
        }
        #expect(found.count > 100, "the scan must find the sources it checks")
        return found
    }

    @Test func noErrorCodeIsAStringLiteralInHandlersStoresOrRules() throws {
        var offenders: [String] = []
        // The server's own codes are named in `ServerErrorCode`, the application's in `ErrorCode`.
        for file in try Self.sources(in: Self.serverModules + ["Store", "Domain", "HTTPServer"])
        where !Self.exempt.contains(URL(fileURLWithPath: file.name).lastPathComponent) {
            for (number, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("code: \"") || line.contains("code: value == nil ? \"") {
                offenders.append("\(file.name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "name these codes in ErrorCode:\n\(offenders.joined(separator: "\n"))")
    }

    @Test func handlersDoNotMapErrorsThemselves() throws {
        var offenders: [String] = []
        for file in try Self.sources(in: Self.serverModules) where file.name != "APIErrorRenderer.swift" {
            for pattern in ["HTTPError(status:", "ResourceErrorMapping", "mapped {", "run {"]
            where file.text.contains(pattern) && !Self.exempt.union(Self.buildHTTPErrors).contains(URL(fileURLWithPath: file.name).lastPathComponent) {
                offenders.append("\(file.name): \(pattern)")
            }
        }
        #expect(offenders.isEmpty, "throw a DomainError instead:\n\(offenders.joined(separator: "\n"))")
    }
}
