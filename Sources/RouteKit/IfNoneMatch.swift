import HTTP1

/// Conditional GET for the downloads (avatars, Storage objects).
package enum IfNoneMatch {
    /// RFC 9110 §13.1.2: `*`, or a list of entity tags compared weakly.
    package static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { tag in
            let tag = tag.trimmingASCIIWhitespace()
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
