import Credentials
import HTTP1
import Store

/// The long-lived device token a successful password sign-in sets, as the cookie
/// `dispatch_device` (HttpOnly, SameSite=Strict, Path=/, 180 days; Secure when PUBLIC_URL is
/// https). Browsers and the console keep it, and so do the Supabase clients that go through a
/// cookie store: supabase-swift's URLSession (HTTPCookieStorage.shared by default), httpx in
/// supabase-py. The sign-in throttle recognises the owner's device by it (`LoginThrottle`).
/// It opens no session and reads nothing: stolen, it gives a budget of wrong passwords for the
/// accounts that signed in on that device, no more.
package struct DeviceCookie: Sendable {
    static let name = "dispatch_device"

    /// Set on the cookie when the server is reached over https (PUBLIC_URL).
    let secure: Bool

    /// The token the request carries, when it has the shape of one we hand out (43 base64url
    /// characters: 32 random bytes). Anything else is no token.
    static func presented(_ request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard trimmed.hasPrefix(name + "=") else { continue }
                let value = trimmed.dropFirst(name.count + 1).prefix { $0 != " " && $0 != "\t" }
                guard value.utf8.count == 43, value.utf8.allSatisfy(isBase64URL) else { return nil }
                return String(value)
            }
        }
        return nil
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    static func hash(_ token: String) -> String { SHA256.hex(token) }

    /// The `Set-Cookie` value that (re)sets the device's token for its full lifetime.
    func header(_ token: String) -> String {
        "\(Self.name)=\(token); Path=/; Max-Age=\(SignInDevices.lifetime.components.seconds); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }
}
