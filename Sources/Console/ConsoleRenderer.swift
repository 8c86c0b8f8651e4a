import Credentials
import HTTP1
import Mustache

/// Renders console pages: the page's template with its data, wrapped in `layout` (navigation,
/// the signed-in admin, the sign-out form, assets). Templates come compiled in
/// (`ConsoleAssets`); each is parsed once at start, so a broken template stops the server from
/// starting rather than failing one page later (and ConsoleTemplateTests renders each one).
package struct ConsoleRenderer: Sendable {
    let library: MustacheLibrary
    /// Asset URLs carry a digest of their content, so they can be cached for good.
    let assetURLs: [String: String]

    package init() throws {
        var library = MustacheLibrary()
        for (name, text) in ConsoleAssets.templates {
            try library.register(text, named: name)
        }
        self.library = library
        var urls: [String: String] = [:]
        for (name, text) in ConsoleAssets.files {
            urls[name] = "/console/assets/\(name)?v=\(Self.digest(text))"
        }
        assetURLs = urls
    }

    static func digest(_ text: String) -> String { String(SHA256.hex(text).prefix(12)) }

    /// `page` inside the layout, as an HTML response (never cached: pages show live data).
    func response(_ page: ConsolePage, viewer: ConsoleViewer?, notice: String? = nil,
                  headers extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var data = page.data
        if let viewer { data["csrf"] = viewer.csrfToken }
        let content = html(page.template, data)
        var layout: [String: Any] = [
            "title": page.title, "content": content,
            "css": assetURLs["console.css"] ?? "", "js": assetURLs["console.js"] ?? "",
        ]
        if let notice { layout["notice"] = notice }
        // A page showing work under way reloads itself (no JavaScript needed; the CSP allows it).
        if let refresh = page.data["refresh"] as? String { layout["refresh"] = refresh }
        if let viewer {
            layout["viewer"] = [
                "name": viewer.user.name, "email": viewer.user.email, "csrf": viewer.csrfToken,
                "nav": ConsoleNav.items.map { ["label": $0.label, "path": $0.path, "current": $0.path == page.section] },
            ] as [String: Any]
        }
        var headers = extra
        headers.set(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.set(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: page.status, headers: headers, body: Array(html("layout", layout).utf8))
    }

    /// One template rendered with `data`; a template that is not registered renders nothing
    /// (only a programming error does that; ConsoleTemplateTests renders every name used).
    func html(_ template: String, _ data: [String: Any]) -> String {
        library.render(data, withTemplate: template) ?? ""
    }

    func hasTemplate(_ name: String) -> Bool { library.getTemplate(named: name) != nil }
}
