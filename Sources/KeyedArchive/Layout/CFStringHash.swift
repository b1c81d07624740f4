/// Core Foundation's string hash (`CFHash` of a `CFString`), which decides the order in which
/// Apple's writer stores a dictionary's keys (format-notes §3.1).
///
/// The string is taken as UTF-16 code units and mixed four units at a time with the multipliers
/// 257³, 257², 257 and 1 (67503105 = 257⁴ − 256⁴ carries the running hash); the leftover units
/// one at a time; strings longer than 96 units hash only three 32-unit windows (start, middle,
/// end). The length seeds the hash and also sets the final shift.
///
/// Core Foundation computes each unit's product in C `int` arithmetic before widening it, so a
/// product past `Int32.max` wraps and is sign-extended. That only happens for units ≥ 127 in the
/// first position of a group (or ≥ 32 514 in the second); we reproduce the C behaviour rather
/// than the mathematically clean formula so that non-ASCII keys hash as they do on a Mac. (The
/// corpus's keys are all ASCII, so this part is unverified on Apple bytes.)
enum CFStringHash {
    static let fullHashLimit = 96

    /// The 64-bit hash (64-bit processes: every current Apple platform).
    static func hash64(_ string: String) -> UInt64 {
        hash64(Array(string.utf16))
    }

    static func hash64(_ units: [UInt16]) -> UInt64 {
        let length = units.count
        var result = UInt64(truncatingIfNeeded: length)
        if length <= fullHashLimit {
            let groupEnd = length & ~3
            var position = 0
            while position < groupEnd {
                result = mixGroup64(result, units, position)
                position += 4
            }
            while position < length {
                result = result &* 257 &+ UInt64(units[position])
                position += 1
            }
        } else {
            for start in [0, (length >> 1) - 16, length - 32] {
                var position = start
                while position < start + 32 {
                    result = mixGroup64(result, units, position)
                    position += 4
                }
            }
        }
        return result &+ (result << UInt64(length & 31))
    }

    /// The 32-bit hash (the era-D writers of format-notes §3.4 ran as 32-bit processes).
    static func hash32(_ units: [UInt16]) -> UInt32 {
        let length = units.count
        var result = UInt32(truncatingIfNeeded: length)
        if length <= fullHashLimit {
            let groupEnd = length & ~3
            var position = 0
            while position < groupEnd {
                result = UInt32(truncatingIfNeeded: mixGroup64(UInt64(result), units, position))
                position += 4
            }
            while position < length {
                result = result &* 257 &+ UInt32(units[position])
                position += 1
            }
        } else {
            for start in [0, (length >> 1) - 16, length - 32] {
                var position = start
                while position < start + 32 {
                    result = UInt32(truncatingIfNeeded: mixGroup64(UInt64(result), units, position))
                    position += 4
                }
            }
        }
        return result &+ (result << UInt32(length & 31))
    }

    @inline(__always)
    private static func mixGroup64(_ result: UInt64, _ units: [UInt16], _ position: Int) -> UInt64 {
        result &* 67_503_105
            &+ cIntProduct(units[position], 16_974_593)
            &+ cIntProduct(units[position + 1], 66_049)
            &+ cIntProduct(units[position + 2], 257)
            &+ UInt64(units[position + 3])
    }

    /// `unit * factor` as C computes it in `int`, then converted to `unsigned long`.
    @inline(__always)
    private static func cIntProduct(_ unit: UInt16, _ factor: Int32) -> UInt64 {
        let product = Int32(truncatingIfNeeded: Int64(unit) &* Int64(factor))
        return UInt64(bitPattern: Int64(product))
    }
}
