// SPDX-License-Identifier: Apache-2.0
// The errSec… result codes with Apple's values, and SecCopyErrorMessageString with Apple's message texts.

public import Foundation

// MARK: - Result codes

/// No error.
public let errSecSuccess: OSStatus = 0
/// Function or operation not implemented.
public let errSecUnimplemented: OSStatus = -4
/// The disk is full.
public let errSecDiskFull: OSStatus = -34
/// I/O error.
public let errSecIO: OSStatus = -36
/// One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// Write permissions error.
public let errSecWrPerm: OSStatus = -61
/// Failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// User canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// An internal component failed (Apple's header has no text for it).
public let errSecInternalComponent: OSStatus = -2070
/// An internal component failed (Apple's header has no text for it).
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018
/// No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: OSStatus = -25291
/// This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = -25295
/// A keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = -25296
/// The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: OSStatus = -25301
/// This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = -25302
/// The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: OSStatus = -25304
/// The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// A default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The specified attribute could not be modified.
public let errSecReadOnlyAttr: OSStatus = -25309
/// User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// The contents of this item cannot be retrieved.
public let errSecDataNotAvailable: OSStatus = -25316
/// The contents of this item cannot be modified.
public let errSecDataNotModifiable: OSStatus = -25317
/// Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// The required service is not available.
public let errSecServiceNotAvailable: OSStatus = -67585
/// An internal error has occurred.
public let errSecInternalError: OSStatus = -67671
/// Invalid data was encountered.
public let errSecInvalidData: OSStatus = -67673

// MARK: - Messages

/// The header texts Apple's `SecErrorMessages.strings` is generated from (codes without a text are absent).
package let secErrorMessages: [OSStatus: String] = [
    errSecSuccess: "No error.",
    errSecUnimplemented: "Function or operation not implemented.",
    errSecDiskFull: "The disk is full.",
    errSecIO: "I/O error.",
    errSecParam: "One or more parameters passed to a function were not valid.",
    errSecWrPerm: "Write permissions error.",
    errSecAllocate: "Failed to allocate memory.",
    errSecUserCanceled: "User canceled the operation.",
    errSecBadReq: "Bad parameter or invalid state for operation.",
    errSecMissingEntitlement: "A required entitlement isn't present.",
    errSecNotAvailable: "No keychain is available. You may need to restart your computer.",
    errSecReadOnly: "This keychain cannot be modified.",
    errSecAuthFailed: "The user name or passphrase you entered is not correct.",
    errSecNoSuchKeychain: "The specified keychain could not be found.",
    errSecInvalidKeychain: "The specified keychain is not a valid keychain file.",
    errSecDuplicateKeychain: "A keychain with the same name already exists.",
    errSecDuplicateItem: "The specified item already exists in the keychain.",
    errSecItemNotFound: "The specified item could not be found in the keychain.",
    errSecBufferTooSmall: "There is not enough memory available to use the specified item.",
    errSecDataTooLarge: "This item contains information which is too large or in a format that cannot be displayed.",
    errSecNoSuchAttr: "The specified attribute does not exist.",
    errSecInvalidItemRef: "The specified item is no longer valid. It may have been deleted from the keychain.",
    errSecNoSuchClass: "The specified item does not appear to be a valid keychain item.",
    errSecNoDefaultKeychain: "A default keychain could not be found.",
    errSecInteractionNotAllowed: "User interaction is not allowed.",
    errSecReadOnlyAttr: "The specified attribute could not be modified.",
    errSecInteractionRequired: "User interaction is required, but is currently not allowed.",
    errSecDataNotAvailable: "The contents of this item cannot be retrieved.",
    errSecDataNotModifiable: "The contents of this item cannot be modified.",
    errSecDecode: "Unable to decode the provided data.",
    errSecServiceNotAvailable: "The required service is not available.",
    errSecInternalError: "An internal error has occurred.",
    errSecInvalidData: "Invalid data was encountered.",
]

/// A human-readable description of a Security result code.
///
/// Unlike Apple's function, which returns `nil` for codes it has no text for, this returns `"OSStatus <n>"` then,
/// so callers always get something to show.
/// - Parameters:
///   - status: an `errSec…` code.
///   - reserved: pass `nil`.
/// - Returns: Apple's message text for `status`, else `"OSStatus <status>"`.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: secErrorMessages[status] ?? "OSStatus \(status)")
}
