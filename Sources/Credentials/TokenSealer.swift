import COpenSSL

/// Seals a refresh token under the token it replaced (AES-256-GCM, OpenSSL EVP).
///
/// Why: a session stores only SHA-256 hashes of its refresh tokens, yet a client that retries
/// a refresh (its first answer was lost) must get the session's current token back. Sealing
/// the successor under a key derived from its predecessor lets exactly the holder of the
/// predecessor recover it: the key is never stored (only the predecessor's SHA-256 is, and
/// the key is an HMAC of the predecessor, not its hash), so a database leak opens nothing.
///
/// Layout: 12-byte random nonce ‖ ciphertext ‖ 16-byte tag.
public enum TokenSealer {
    static let nonceLength = 12
    static let tagLength = 16
    /// Domain separation: this key is used for nothing else.
    static let keyLabel = Array("dispatch refresh-token successor v1".utf8)

    public static func seal(_ token: String, under predecessor: String) throws(CredentialsError) -> [UInt8] {
        let nonce = try SecureRandom.bytes(nonceLength)
        let plaintext = Array(token.utf8)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw .sealingFailed }
        defer { EVP_CIPHER_CTX_free(context) }
        let key = key(for: predecessor)
        var written: Int32 = 0
        var ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        ok = ok && EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1
        var final = [UInt8](repeating: 0, count: 16)
        ok = ok && EVP_EncryptFinal_ex(context, &final, &written) == 1
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        guard ok else { throw .sealingFailed }
        return nonce + ciphertext + tag
    }

    /// The sealed token, or nil when `predecessor` is not the key it was sealed under or the
    /// bytes were altered (GCM authenticates them).
    public static func open(_ sealed: [UInt8], under predecessor: String) -> String? {
        guard sealed.count > nonceLength + tagLength else { return nil }
        let nonce = Array(sealed.prefix(nonceLength))
        let ciphertext = Array(sealed.dropFirst(nonceLength).dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let key = key(for: predecessor)
        var written: Int32 = 0
        var ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        ok = ok && EVP_DecryptUpdate(context, &plaintext, &written, ciphertext, Int32(ciphertext.count)) == 1
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
        var final = [UInt8](repeating: 0, count: 16)
        ok = ok && EVP_DecryptFinal_ex(context, &final, &written) == 1
        guard ok else { return nil }
        return String(validating: plaintext, as: UTF8.self)
    }

    /// HMAC-SHA256(predecessor, label): 32 bytes, an AES-256 key.
    static func key(for predecessor: String) -> [UInt8] {
        Array(HMACSHA256.mac(key: Array(predecessor.utf8), keyLabel).prefix(32))
    }
}
