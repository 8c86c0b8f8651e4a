@testable import API
@testable import Accounts
@testable import Resources
@testable import Sync
@testable import Realtime
@testable import Supabase
@testable import Operations
@testable import RouteKit
@testable import ServiceKit
import Testing

/// Mail links send the browser only to allowed targets (AUTH_REDIRECT_URLS): no open redirect.
@Suite struct RedirectAllowListTests {
    let list = RedirectAllowList(publicURL: "https://app.example.com/", allowed: ["https://app.example.com", "myapp://callback"])

    @Test func allowedTargetsAndWhatLiesUnderThem() {
        for target in ["https://app.example.com", "https://app.example.com/welcome?x=1", "https://app.example.com#frag",
                       "myapp://callback", "myapp://callback/done"] {
            #expect(list.resolve(target) == target, "\(target)")
        }
    }

    @Test func everythingElseFallsBackToTheFirstEntry() {
        for target in ["https://app.example.com.evil.net", "https://app.example.com@evil.net", "https://evil.net/?https://app.example.com",
                       "myapp://callbackx", "https://app.example.com/\r\nSet-Cookie: x", "", "javascript:alert(1)"] {
            #expect(list.resolve(target) == "https://app.example.com", "\(target)")
        }
        #expect(list.resolve(nil) == "https://app.example.com")
    }

    @Test func linksAreBuiltOnThePublicURLAndFormEncoded() {
        let link = list.verifyLink(token: "pkce_a-b_c", type: "magiclink", redirectTo: "https://app.example.com/a b?c=d&e")
        #expect(link == "https://app.example.com/auth/v1/verify?token=pkce_a-b_c&type=magiclink&redirect_to=https%3A%2F%2Fapp.example.com%2Fa+b%3Fc%3Dd%26e")
    }
}
