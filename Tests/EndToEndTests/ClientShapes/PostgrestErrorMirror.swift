/// supabase-swift 2.55.1 `PostgrestError` (`Sources/Helpers/SharedModels/PostgrestError.swift`):
/// what `PostgrestBuilder` decodes every non-2xx `/rest/v1` body as (with
/// `JSONDecoder.supabase()`); a body that does not decode becomes a generic `HTTPError`, and the
/// app's `catch let e as PostgrestError where e.code == …` never matches.
struct PostgrestErrorMirror: Codable {
    let details: String?
    let hint: String?
    let code: String?
    let message: String
}
