import COpenSSL

/// AES-256-GCM through OpenSSL EVP: what `TokenSealer` and the mail outbox's seal share.
///
/// Layout: 12-byte random nonce ‖ ciphertext ‖ 16-byte tag. The tag authenticates the bytes,
/// so an altered or foreign value does not open.
public enum AESGCM {
    static let nonceLength = 12
    static let tagLength = 16

    /// `plaintext` sealed under `key` (32 bytes).
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) throws(CredentialsError) -> [UInt8] {
        guard key.count == 32 else { throw .sealingFailed }
        let nonce = try SecureRandom.bytes(nonceLength)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw .sealingFailed }
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        var ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        ok = ok && EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1
        var final = [UInt8](repeating: 0, count: 16)
        ok = ok && EVP_EncryptFinal_ex(context, &final, &written) == 1
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        guard ok else { throw .sealingFailed }
        return nonce + ciphertext + tag
    }

    /// The plaintext, or nil when `key` is not the one `sealed` was made under or the bytes
    /// were altered.
    public static func open(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count == 32, sealed.count > nonceLength + tagLength else { return nil }
        let nonce = Array(sealed.prefix(nonceLength))
        let ciphertext = Array(sealed.dropFirst(nonceLength).dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        var ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
        ok = ok && EVP_DecryptUpdate(context, &plaintext, &written, ciphertext, Int32(ciphertext.count)) == 1
        ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
        var final = [UInt8](repeating: 0, count: 16)
        ok = ok && EVP_DecryptFinal_ex(context, &final, &written) == 1
        return ok ? plaintext : nil
    }
}
