import Store

/// What a `/rest/v1` write's `Prefer` headers ask for. PostgREST reads them as a set: values
/// comma-joined (with or without spaces), in any order, possibly split over several headers
/// (supabase-py sends `return=representation,resolution=merge-duplicates,missing=default`,
/// supabase-swift `return=representation` plus a second header). Unknown preferences are
/// ignored, as PostgREST does without `handling=strict`.
struct RestWritePreferences: Sendable, Equatable {
    enum Return: Sendable, Equatable {
        /// The default: 201 (insert) or 204 (update, delete) with no body.
        case minimal
        /// The written rows, as `select=` asks.
        case representation
    }

    enum Resolution: Sendable, Equatable {
        /// `merge-duplicates`: an existing row gets the keys sent (an upsert).
        case merge
        /// `ignore-duplicates`: an existing row is left alone and left out of the answer.
        case ignore
    }

    var returning: Return = .minimal
    /// Whether `return=` was sent: only then is it reported (`Preference-Applied`). `headers-only`
    /// is answered as `minimal` and reported as what it got.
    var returnRequested = false
    var resolution: Resolution?
    /// `missing=default`: keys left out take their defaults. This server always treats a key
    /// left out as "not sent" (never as null), so it changes nothing; it is accepted.
    var missingDefault = false

    init() {}

    init(_ headerValues: [String]) {
        for value in headerValues {
            for token in value.split(separator: ",") {
                let pair = token.trimmingASCIIWhitespace().lowercased()
                switch pair {
                case "return=representation": (returning, returnRequested) = (.representation, true)
                // headers-only answers no body, like minimal (there is no Location for a set).
                case "return=minimal", "return=headers-only": (returning, returnRequested) = (.minimal, true)
                case "resolution=merge-duplicates": resolution = .merge
                case "resolution=ignore-duplicates": resolution = .ignore
                case "missing=default": missingDefault = true
                default: continue
                }
            }
        }
    }
}
