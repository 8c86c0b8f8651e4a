import Testing
@testable import HTTPServer

@Suite struct TrustedProxiesTests {
    @Test func parsesAddressesAndRangesAndRejectsTheRest() throws {
        let proxies = try TrustedProxies(parsing: " 10.0.0.0/8, 192.0.2.1 ,::1, 2001:db8::/32,")
        #expect(proxies.networks.count == 4)
        #expect(proxies.trusts(try #require(IPAddress("10.200.3.4"))))
        #expect(!proxies.trusts(try #require(IPAddress("11.0.0.1"))))
        #expect(proxies.trusts(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(proxies.trusts(try #require(IPAddress("::1"))))
        for bad in ["example.com", "10.0.0.0/33", "10.0.0.1/8", "1.2.3", "10.0.0.0/", "10.0.0.0/+8", "::1/129", "*"] {
            #expect(throws: TrustedProxies.InvalidEntry(text: bad)) { try TrustedProxies(parsing: "127.0.0.1,\(bad)") }
        }
        #expect(try TrustedProxies(parsing: "").isEmpty)
    }

    @Test func clientIsTheRightMostUntrustedHop() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8")
        // Client-written entries (left) are never reached once an untrusted hop is found.
        #expect(proxies.clientAddress(peer: "127.0.0.1:5000", forwardedFor: ["6.6.6.6, 203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1:5000", forwardedFor: ["6.6.6.6", "203.0.113.9, 10.1.1.1"]) == "203.0.113.9")
        // Every hop trusted: the left-most one is the best-known client.
        #expect(proxies.clientAddress(peer: "127.0.0.1:1", forwardedFor: ["10.0.0.2"]) == "10.0.0.2")
        // A malformed entry stops the walk at the hop that reported it.
        #expect(proxies.clientAddress(peer: "127.0.0.1:1", forwardedFor: ["junk, 10.0.0.3"]) == "10.0.0.3")
        #expect(proxies.clientAddress(peer: "127.0.0.1:1", forwardedFor: []) == "127.0.0.1")
    }

    @Test func forwardedForIsIgnoredFromUntrustedPeers() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.1")
        #expect(proxies.clientAddress(peer: "198.51.100.4:443", forwardedFor: ["1.2.3.4"]) == "198.51.100.4")
        #expect(TrustedProxies().clientAddress(peer: "[::1]:80", forwardedFor: ["1.2.3.4"]) == "::1")
    }

    @Test func ipv4MappedIPv6PeersAreIPv4() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1")
        #expect(proxies.clientAddress(peer: "[::ffff:127.0.0.1]:9", forwardedFor: ["203.0.113.1"]) == "203.0.113.1")
        #expect(IPAddress(peer: "[::ffff:192.0.2.1]:80")?.description == "192.0.2.1")
    }
}
