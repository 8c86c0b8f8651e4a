import COpenSSL

/// HMAC-SHA256 through OpenSSL's one-shot `HMAC()`.
public enum HMACSHA256 {
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count),
                         m.bindMemory(to: UInt8.self).baseAddress, m.count,
                         o.bindMemory(to: UInt8.self).baseAddress, &length)
                }
            }
        }
        // HMAC() only fails on allocation failure; an empty MAC then never verifies.
        guard ok != nil else { return [] }
        return Array(out.prefix(Int(length)))
    }
}

/// Comparison whose time does not depend on where the inputs differ (`CRYPTO_memcmp`).
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
    }
}
