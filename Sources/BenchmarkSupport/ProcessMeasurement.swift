import Foundation

// What both benchmark executables need from the process they run in: clocks, memory figures
// from /proc, and re-running themselves for one case so that each case's peak is its own.

/// A byte figure from `/proc/self/status` (`VmHWM:` peak resident, `VmRSS:` current); 0 where
/// the file does not exist (not Linux).
public func processStatusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
    return 0
}

/// Monotonic wall-clock time, seconds.
public func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU time of the calling thread (user + system, page faults included). Other processes on a
/// shared machine do not add to it, as they add to wall time.
public func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// glibc malloc settings for a child that runs one case several times: keep freed memory in the
/// process instead of handing it back to the kernel between runs. By default glibc shrinks the
/// heap when the free space at its top passes a threshold that it adjusts as it goes, so whether
/// a run pays page faults for memory the previous run already touched depends on which block
/// happens to sit at the top of the heap: moving one allocation changed a fleet encode's faults
/// from 7,200 to 16,400 per run, and its time by 40 %, with the same work. The values are glibc's
/// own ceilings for those adjusted thresholds (mmap 32 MiB, trim twice that).
public let steadyHeapEnvironment = [
    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864",
]

/// Hands the heap's free memory back to the kernel: glibc's `malloc_trim`, looked up at run time
/// (the C library module does not export it). Does nothing where there is no such function.
public func releaseFreeHeapMemory() {
    #if os(Linux)
    guard let program = dlopen(nil, RTLD_LAZY), let symbol = dlsym(program, "malloc_trim") else { return }
    typealias Trim = @convention(c) (Int) -> Int32
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
    #endif
}

/// Runs this executable again with `arguments` (and `environment` added to this process's) and
/// returns the whitespace-separated fields it printed; throws if it failed.
public func runSelf(_ arguments: [String], environment: [String: String] = [:]) throws -> [Substring] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
    return output.split(whereSeparator: \.isWhitespace)
}
