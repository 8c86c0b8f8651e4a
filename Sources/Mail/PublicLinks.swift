import Synchronization

/// PUBLIC_URL, the base of every link in a mail (never a request's Host header, which a
/// client chooses), and AUTH_REDIRECT_URLS, the redirect targets links may lead to.
///
/// Without PUBLIC_URL the base is the listener's own URL, known only once the server has
/// bound its port (PORT=0 in tests): `resolveDefault` sets it then, before any request.
public final class PublicLinks: Sendable {
    private let configuredBase: String?
    private let configuredRedirects: [String]?
    private let listenerURL = Mutex<String?>(nil)

    /// `baseURL` without a trailing slash; nil values take the defaults.
    public init(baseURL: String?, redirectURLs: [String]?) {
        configuredBase = baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        configuredRedirects = redirectURLs
    }

    /// The listener's URL, used when PUBLIC_URL is not set.
    public func resolveDefault(listenerURL url: String) {
        listenerURL.withLock { $0 = url }
    }

    /// PUBLIC_URL, or the listener's URL.
    public var baseURL: String {
        configuredBase ?? listenerURL.withLock { $0 } ?? "http://127.0.0.1"
    }

    /// AUTH_REDIRECT_URLS, or just the base URL.
    public var redirectURLs: [String] {
        configuredRedirects ?? [baseURL]
    }
}
