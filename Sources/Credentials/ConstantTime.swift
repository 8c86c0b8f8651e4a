import COpenSSL

/// Comparison whose duration does not depend on where the inputs differ, so an attacker cannot
/// learn a secret byte by byte from response times.
public enum ConstantTime {
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        // Lengths are not secret here (digests of fixed size); only contents are.
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { l in
            rhs.withUnsafeBytes { r in
                CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0
            }
        }
    }
}
