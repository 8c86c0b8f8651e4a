/// The short codes sent by e-mail (sign-in, recovery, invitation, address change): six decimal
/// digits drawn uniformly from the CSPRNG. A code is only ever stored as a keyed hash
/// (`HMACSHA256` under a key derived from the server secret), so a database leak neither
/// reveals live codes nor lets anyone precompute the million candidates without the secret.
public enum OneTimeCode {
    public static let digits = 6

    /// A code such as "004217" (leading zeros kept: every one of the 10^6 values is possible).
    public static func make() throws(CredentialsError) -> String {
        // Rejection sampling: 32-bit values at or above the largest multiple of 10^6 are drawn
        // again, so `value % 10^6` has no bias toward small codes.
        let range: UInt32 = 1_000_000
        let limit = UInt32.max - UInt32.max % range
        while true {
            let bytes = try SecureRandom.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard value < limit else { continue }
            let text = String(value % range)
            return String(repeating: "0", count: digits - text.count) + text
        }
    }

    /// Whether `text` has the shape of a code (exactly six ASCII digits). Anything else can
    /// never match; it still counts as a wrong try, like any other miss.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == digits && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}
