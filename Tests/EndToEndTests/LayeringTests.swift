import Foundation
import Testing

/// The layering rules docs/architecture.md states, checked by reading `Sources/`. SwiftPM
/// already refuses a cycle between targets and a module's internal types outside it; these
/// are the rules it cannot see:
/// - outside a `Routes/` folder, the capability modules do not name the HTTP request side
///   (`HTTPRequest`, `HTTPResponse`, `RequestContext`, `HandlerReply`, `Router`): services take
///   values (`ClientInfo`, `Principal`), routes turn requests into them;
/// - no module names another module's routes (`…Routes` types) except the composition root,
///   which registers them: families call each other's services, never each other's handlers;
/// - only the background kit (`ServiceKit`), `HTTPServer` and `Postgres` create threads or
///   queues, so every thread the server runs has one lifecycle to look for.
@Suite struct LayeringTests {
    struct Source {
        let module: String
        let path: String
        /// The text without comments and string literals: what the code names.
        let code: String
    }

    /// Modules whose whole purpose is HTTP: the server, the wire format, the request kit,
    /// the composition root, the console's pages and the executable that wires them.
    static let httpModules: Set<String> = ["HTTP1", "HTTPServer", "RouteKit", "API", "Console", "dispatchd"]
    /// Where threads may be made.
    static let threadModules: Set<String> = ["ServiceKit", "HTTPServer", "Postgres"]
    static let httpTypes = ["HTTPRequest", "HTTPResponse", "RequestContext", "HandlerReply", "Router"]
    static let threadMakers = ["Thread {", "Thread(", "detachNewThread", "pthread_create", "DispatchQueue(", "concurrentPerform"]

    static func sources(root: String = ProjectPaths.root + "/Sources") throws -> [Source] {
        let fileManager = FileManager.default
        return try fileManager.contentsOfDirectory(atPath: root).sorted().flatMap { module -> [Source] in
            guard let files = fileManager.subpaths(atPath: root + "/" + module) else { return [] }
            return try files.filter { $0.hasSuffix(".swift") }.sorted().map { file in
                let text = try String(contentsOfFile: "\(root)/\(module)/\(file)", encoding: .utf8)
                return Source(module: module, path: file, code: withoutCommentsAndStrings(text))
            }
        }
    }

    /// Comments and string literals blanked, so a doc comment that mentions a type is no use of it.
    static func withoutCommentsAndStrings(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var out = ""
            var inString = false
            var previous: Character = " "
            var iterator = line.makeIterator()
            while let character = iterator.next() {
                if !inString && character == "/" && previous == "/" { out.removeLast(); break }
                if character == "\"" && previous != "\\" { inString.toggle(); out.append("\""); previous = character; continue }
                out.append(inString ? " " : character)
                previous = character
            }
            return out
        }.joined(separator: "\n")
    }

    static func names(_ code: String, _ identifier: String) -> Bool {
        code.range(of: "\\b\(identifier)\\b", options: .regularExpression) != nil
    }

    static func violations(in sources: [Source]) -> [String] {
        var found: [String] = []
        // Every `…Routes` type and the module that declares it.
        var routeOwners: [String: String] = [:]
        for source in sources {
            for match in source.code.matches(of: /(?:enum|struct|class)\s+(\w+Routes)\b/) {
                routeOwners[String(match.1)] = source.module
            }
        }
        for source in sources {
            let location = "\(source.module)/\(source.path)"
            let inRoutes = source.path.hasPrefix("Routes/") || source.path.contains("/Routes/")
            if !httpModules.contains(source.module) && !inRoutes {
                for type in httpTypes where names(source.code, type) {
                    found.append("\(location) names \(type) outside Routes/")
                }
            }
            if source.module != "API" {
                for (type, owner) in routeOwners where owner != source.module && names(source.code, type) {
                    found.append("\(location) names \(owner)'s \(type)")
                }
            }
            if !threadModules.contains(source.module) {
                for maker in threadMakers where source.code.contains(maker) {
                    found.append("\(location) makes a thread (\(maker)) outside ServiceKit, HTTPServer and Postgres")
                }
            }
        }
        return found
    }

    @Test func theRulesHoldForEveryModule() throws {
        let sources = try Self.sources()
        let modules = Set(sources.map(\.module))
        // A wrong root would scan nothing and pass.
        #expect(modules.isSuperset(of: ["Accounts", "Resources", "Sync", "Realtime", "Supabase", "Operations", "API"]))
        #expect(sources.count > 300)
        let found = Self.violations(in: sources)
        #expect(found.isEmpty, "layering violations:\n\(found.joined(separator: "\n"))")
    }

    /// Each rule catches a planted violation of its kind (the scan itself can fail).
    @Test func eachRuleCatchesAPlantedViolation() {
        let planted = [
            Source(module: "Accounts", path: "AuthService+Planted.swift", code: "func f(_ r: HTTPRequest) {}"),
            Source(module: "Supabase", path: "Routes/Planted.swift", code: "AuthRoutes.register(on: &router)"),
            Source(module: "Accounts", path: "Routes/AuthRoutes.swift", code: "enum AuthRoutes {}"),
            Source(module: "Sync", path: "Planted.swift", code: "let t = Thread { }"),
        ]
        let found = Self.violations(in: planted)
        #expect(found.contains("Accounts/AuthService+Planted.swift names HTTPRequest outside Routes/"))
        #expect(found.contains("Supabase/Routes/Planted.swift names Accounts's AuthRoutes"))
        #expect(found.contains { $0.hasPrefix("Sync/Planted.swift makes a thread") })
        #expect(found.count == 3)
        #expect(Self.withoutCommentsAndStrings("let a = 1 // HTTPRequest") == "let a = 1 ")
    }
}
