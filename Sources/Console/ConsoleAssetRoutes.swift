import HTTP1
import HTTPServer

/// `/console/assets/{name}`: the compiled-in stylesheet and script. Pages link them with a
/// digest (`?v=`), so they may be cached for a year; a new build changes the links.
enum ConsoleAssetRoutes {
    static let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]

    static func register(on router: inout Router) {
        router.get("/console/assets/{name}", runsOnEventLoop: true) { _, context in
            let name = try context.pathParameter("name")
            guard let text = ConsoleAssets.files[name], let type = name.split(separator: ".").last.flatMap({ types[String($0)] }) else {
                throw ConsoleError.notFound("The file \(name)")
            }
            return .response(HTTPResponse(status: .ok, headers: [
                "Content-Type": type, "Cache-Control": "public, max-age=31536000, immutable",
            ], body: Array(text.utf8)))
        }
    }
}
