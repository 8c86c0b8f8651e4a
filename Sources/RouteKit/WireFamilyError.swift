/// An error a wire family throws in its own shape (PostgREST's `RestError`): its renderer
/// knows it, so it is a refusal, not a bug, and is not logged as one.
package protocol WireFamilyError: Error {}
