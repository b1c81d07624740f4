/// Core Foundation's date arithmetic for XML property lists, both directions.
///
/// The calendar is the proleptic Gregorian one with a year 0, in UTC. Core Foundation does the
/// arithmetic partly in floating point and with 32-bit fields, and its quirks are visible in
/// files (a second field of `60`, years that wrap), so both directions follow its formulas
/// rather than a textbook conversion (see `xml-format-notes.md`, "date").
enum PropertyListCalendar {
    /// Days from 0000-03-01, the start of a 400-year cycle, to 2001-01-01.
    static let referenceDays: Int64 = 730_791

    /// Day counts before each month, indexed by month number; 0 and 13 are the values Core
    /// Foundation's table gives those out-of-range months (months above 13 count as 0 days).
    private static let daysBeforeMonth: [Int64] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]

    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    @inline(__always)
    static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days from 2001-01-01 to January 1 of `year` (Gregorian numbering, year 0 = 1 BC).
    /// `year` stays within ±2^32, so nothing here can overflow.
    static func daysToJanuaryFirst(of year: Int64) -> Int64 {
        // Counted from March 1 so that the leap day ends the cycle year.
        let y = year - 1
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        // March 1 of year-1 plus 306 days is January 1 of year.
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + 306
        return era * 146_097 + dayOfEra - referenceDays
    }

    /// (year, month, day) for a count of days since 2001-01-01.
    static func civil(fromDaysSinceReference days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + referenceDays
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    // MARK: Reading

    /// The absolute time Core Foundation's XML reader gives a `<date>`'s fields.
    ///
    /// `year` is the 32-bit value the reader accumulated (it wraps, as Core Foundation's
    /// does). Fields are not range-checked: the day, hours, minutes and seconds are added
    /// arithmetically, month 0 counts like January, 13 like January of the next year, and any
    /// later month adds nothing, as Core Foundation's month table does.
    static func absoluteTime(year: Int32, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double {
        // Core Foundation subtracts 2001 in 32 bits before widening; keep its wrap-around.
        let relativeYear = Int64(year.subtractingReportingOverflow(2001).partialValue)
        let gregorianYear = relativeYear + 2001
        var days = daysToJanuaryFirst(of: gregorianYear)
        if month >= 0 && month < daysBeforeMonth.count {
            days += daysBeforeMonth[month]
            if month > 2 && isLeap(gregorianYear) { days += 1 }
        }
        days += Int64(day) - 1
        return 86_400.0 * Double(days) + (3600.0 * Double(hour) + 60.0 * Double(minute) + Double(second))
    }

    // MARK: Writing

    /// Dates whose text Core Foundation prints sensibly: finite and within about ±2 × 10^9
    /// years. Beyond that its fields overflow into garbage (see the notes' quirks).
    static func isWritable(_ seconds: Double) -> Bool {
        seconds.isFinite && abs(seconds) < 6.7e16
    }

    /// Core Foundation's `(int)floor(d - floor(d / m) * m)`, made non-negative.
    @inline(__always)
    private static func modulo(_ d: Double, _ modulus: Double) -> Int {
        var result = Int(Float((d - (d / modulus).rounded(.down) * modulus).rounded(.down)))
        if result < 0 { result += Int(modulus) }
        return result
    }

    /// The fields Core Foundation's writer prints for an absolute time. Hours, minutes and
    /// seconds come from floating-point modulo arithmetic, which is why a time a hair below a
    /// whole minute prints second 60.
    static func writerFields(_ seconds: Double) -> (year: Int64, month: Int64, day: Int64, hour: Int, minute: Int, second: Int) {
        let days = Int64((seconds / 86_400.0).rounded(.down))
        let (year, month, day) = civil(fromDaysSinceReference: days)
        let hour = modulo((seconds / 3600.0).rounded(.down), 24)
        let minute = modulo((seconds / 60.0).rounded(.down), 60)
        var secondValue = seconds - (seconds / 60.0).rounded(.down) * 60.0
        if secondValue < 0 { secondValue += 60 }
        return (year, month, day, hour, minute, Int(secondValue))
    }
}
