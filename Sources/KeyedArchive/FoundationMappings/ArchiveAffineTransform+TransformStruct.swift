/// The forms of `NSTransformStruct`, as Apple's Foundation writes and reads them (its
/// `-[NSAffineTransform encodeWithCoder:]` and `initWithCoder:`; Docs/KeyedArchiveFormat.md):
/// big-endian 32-bit floats, as few as the matrix needs.
///
/// | the matrix | bytes | what they hold |
/// | --- | --- | --- |
/// | with rotation or shear (m12 or m21 not 0) | 24 | m11, m12, m21, m22, tX, tY |
/// | scaled (m11 or m22 not 1) and translated | 16 | m11, m22, tX, tY |
/// | scaled only | 9 | the byte 2, then m11, m22 |
/// | translated only | 9 | the byte 1, then tX, tY |
/// | the identity | — | no `NSTransformStruct` at all (empty bytes read the same) |
extension ArchiveAffineTransform {
    /// The transform `bytes` store; `fail` names what is wrong with them otherwise.
    init(transformStruct bytes: [UInt8], fail: (String) throws(ArchiveError) -> Never) throws(ArchiveError) {
        func float(at offset: Int) -> Float {
            var bits: UInt32 = 0
            for byte in bytes[offset..<(offset + 4)] { bits = bits << 8 | UInt32(byte) }
            return Float(bitPattern: bits)
        }
        switch bytes.count {
        case 0:
            // Foundation reads empty bytes as it reads no key: the identity.
            self.init()
        case 24:
            self.init(m11: float(at: 0), m12: float(at: 4), m21: float(at: 8), m22: float(at: 12), tX: float(at: 16), tY: float(at: 20))
        case 16:
            self.init(m11: float(at: 0), m22: float(at: 4), tX: float(at: 8), tY: float(at: 12))
        case 9 where bytes[0] == 1:
            self.init(tX: float(at: 1), tY: float(at: 5))
        case 9 where bytes[0] == 2:
            self.init(m11: float(at: 1), m22: float(at: 5))
        case 9:
            try fail("NSTransformStruct of 9 bytes starts with \(bytes[0]); Foundation writes 1 (a translation) or 2 (a scale)")
        default:
            try fail("NSTransformStruct has \(bytes.count) bytes; Foundation writes 24 (six floats), 16 (scale and translation) or 9 (one of them)")
        }
    }

    /// The bytes Foundation writes for this matrix, nil for the identity (which it writes as
    /// no `NSTransformStruct`).
    var transformStruct: [UInt8]? {
        var bytes: [UInt8] = []
        func append(_ numbers: Float...) {
            for number in numbers {
                let bits = number.bitPattern
                bytes += [UInt8(truncatingIfNeeded: bits >> 24), UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)]
            }
        }
        let translated = tX != 0 || tY != 0
        if m12 != 0 || m21 != 0 {
            append(m11, m12, m21, m22, tX, tY)
        } else if m11 != 1 || m22 != 1 {
            if translated {
                append(m11, m22, tX, tY)
            } else {
                bytes = [2]
                append(m11, m22)
            }
        } else if translated {
            bytes = [1]
            append(tX, tY)
        } else {
            return nil
        }
        return bytes
    }
}
