extension ArchiveError.Code {
    /// A value the requested archive format cannot carry as it is: written, it would read back
    /// as another value (in XML: a string starting with U+FEFF, −0, a NaN payload, a date's
    /// fraction of a second, a plain `{CF$UID: n}` dictionary). The error names the key path and
    /// the value; ``ArchiveWritingOptions/xmlValueLoss`` can accept the loss instead.
    public static let unrepresentableValue = ArchiveError.Code(rawValue: "unrepresentableValue")
}
