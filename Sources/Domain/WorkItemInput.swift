import Foundation

/// A task or activity write: the generic input over the kind's description. `claimed_by` is
/// not writable: a value equal to the current one is ignored, a different one is refused
/// (claims go through claim/release), so it travels in `echoed`.
public typealias WorkItemInput = ResourceInput

extension ResourceInput {
    /// `check(complete:)` plus the claim rule: `currentClaimer` is the row's `claimed_by` (nil
    /// on create), and a `claimed_by` sent back must equal it.
    public func check(complete: Bool, currentClaimer: UUID?) -> [FieldError] {
        var errors = check(complete: complete)
        if let sent = echoed["claimed_by"], sent.uuid != currentClaimer {
            errors.append(FieldError(field: "claimed_by", code: .readOnly,
                                     message: "Claims change only through POST/DELETE …/claim."))
        }
        return errors
    }
}
