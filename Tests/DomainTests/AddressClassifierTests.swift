import Domain
import Testing

/// The SSRF guard's rule as a pure function: which resolved addresses a webhook may reach.
@Suite struct AddressClassifierTests {
    static func verdict(_ text: String) -> AddressClassifier.Verdict? {
        NetworkAddress(text).map(AddressClassifier.classify)
    }

    @Test(arguments: [
        "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254", "192.168.1.1", "169.254.169.254", "127.0.0.1",
        "127.1.2.3", "0.0.0.0", "100.64.0.1", "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1", "fd12:3456::1",
        "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::ffff:7f00:1",
        "64:ff9b::a00:1", "2002:c0a8:101::1", "::127.0.0.1",
    ])
    func nonPublicAddressesAreRefused(_ address: String) throws {
        let verdict = try #require(Self.verdict(address), "\(address) did not parse")
        #expect(verdict != .allowed, "\(address)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "192.169.0.1", "11.0.0.1", "2606:4700:4700::1111",
                      "::ffff:8.8.8.8", "2a00:1450:4001:80b::200e"])
    func publicAddressesAreAllowed(_ address: String) throws {
        #expect(try #require(Self.verdict(address)) == .allowed, "\(address)")
    }

    @Test func reasonsNameTheRange() {
        #expect(Self.verdict("127.0.0.1") == .refused("loopback"))
        #expect(Self.verdict("169.254.169.254") == .refused("link-local"))
        #expect(Self.verdict("fd00::1") == .refused("unique local"))
        #expect(Self.verdict("::ffff:192.168.0.1") == .refused("private"))
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "::1::2", "12345::", "g::1", "localhost",
                      "1.2.3.4 ", "0x7f.0.0.1"])
    func malformedTextIsNotAnAddress(_ text: String) {
        #expect(NetworkAddress(text) == nil, "\(text)")
    }

    @Test func rangesContainTheirAddressesAndTheirV4MappedForms() throws {
        let range = try #require(AddressRange(parsing: "10.20.0.0/16"))
        #expect(range.contains(try #require(NetworkAddress("10.20.3.4"))))
        #expect(range.contains(try #require(NetworkAddress("::ffff:10.20.3.4"))))
        #expect(!range.contains(try #require(NetworkAddress("10.21.0.1"))))
        let single = try #require(AddressRange(parsing: "127.0.0.1"))
        let loopback = try #require(NetworkAddress("127.0.0.1")), next = try #require(NetworkAddress("127.0.0.2"))
        #expect(single.contains(loopback) && !single.contains(next))
        #expect(AddressRange(parsing: "10.0.0.0/33") == nil && AddressRange(parsing: "fc00::/129") == nil)
        #expect(try #require(AddressRange(parsing: "fc00::/7")).contains(try #require(NetworkAddress("fdff::1"))))
    }
}
