import Foundation
import Testing

/// Error codes are named once (`ErrorCode`) and rendered in one place (`APIErrorRenderer`):
/// a code written as a string literal in a handler or store, or a handler mapping errors
/// itself, fails here.
@Suite struct ErrorCodeNamingTests {
    /// Files owned by the authentication work, which keeps its GoTrue-shaped codes as literals
    /// until it moves to `ErrorCode`, and the HTTP server's own transport errors (below Domain).
    static let exempt: Set<String> = [
        "AuthMiddleware.swift", "AuthRoutes.swift", "AuthRoutes+Passwords.swift", "AuthService.swift",
        "SyncService.swift", "SyncWaiters.swift",
        // /auth/v1 answers GoTrue's codes in GoTrue's shape (GoTrueErrorRenderer, via SupabaseGateway).
        "GoTrueRoutes.swift", "GoTrueUserUpdate.swift", "GoTrueErrorRenderer.swift", "SupabaseGateway.swift",
        // /rest/v1 answers PostgREST's codes (PGRST…) in PostgREST's shape (RestError, RestErrorMapping).
        "RestError.swift", "RestErrorMapping.swift", "RestFilterParser.swift",
    ]

    /// Folders of the Supabase-compatible families, which answer in their own wire shapes.
    static let exemptFolders = ["PostgREST/", "Supabase/"]

    static func sources(in directories: [String]) throws -> [(name: String, text: String)] {
        try directories.flatMap { directory in
            let path = ProjectPaths.root + "/Sources/" + directory
            let names = try FileManager.default.subpathsOfDirectory(atPath: path).filter { name in
                name.hasSuffix(".swift") && !exemptFolders.contains { name.hasPrefix($0) }
            }
            return try names.map { (name: $0, text: try String(contentsOfFile: path + "/" + $0, encoding: .utf8)) }
        }
    }

    @Test func noErrorCodeIsAStringLiteralInHandlersStoresOrRules() throws {
        var offenders: [String] = []
        for file in try Self.sources(in: ["API", "Store", "Domain"])
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
        for file in try Self.sources(in: ["API"]) where file.name != "APIErrorRenderer.swift" {
            for pattern in ["HTTPError(status:", "ResourceErrorMapping", "mapped {", "run {"]
            where file.text.contains(pattern) && !Self.exempt.contains(URL(fileURLWithPath: file.name).lastPathComponent) {
                offenders.append("\(file.name): \(pattern)")
            }
        }
        #expect(offenders.isEmpty, "throw a DomainError instead:\n\(offenders.joined(separator: "\n"))")
    }
}
