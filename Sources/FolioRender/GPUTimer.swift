import COpenGL

/// Measures GPU time of frames with `GL_TIME_ELAPSED` queries, reading results a few frames
/// late so measuring never stalls the pipeline.
public final class GPUTimer {
    private var queries: [GLuint]
    private var started: [Int] = []
    private var next = 0
    /// Nanoseconds of every finished measurement.
    public private(set) var samples: [UInt64] = []

    public init(depth: Int = 4) {
        queries = [GLuint](repeating: 0, count: max(depth, 1))
        glGenQueries(GLsizei(queries.count), &queries)
    }

    public func begin() {
        if started.count == queries.count { collect(started.removeFirst()) }
        glBeginQuery(E(GL_TIME_ELAPSED), queries[next])
    }

    public func end() {
        glEndQuery(E(GL_TIME_ELAPSED))
        started.append(next)
        next = (next + 1) % queries.count
    }

    /// Waits for the queries still open and returns the mean in milliseconds (nil if none).
    public func finish() -> Double? {
        while !started.isEmpty { collect(started.removeFirst()) }
        guard !samples.isEmpty else { return nil }
        return Double(samples.reduce(0, +)) / Double(samples.count) / 1e6
    }

    private func collect(_ slot: Int) {
        var ns: GLuint64 = 0
        glGetQueryObjectui64v(queries[slot], E(GL_QUERY_RESULT), &ns)
        samples.append(ns)
    }

    public func destroy() {
        glDeleteQueries(GLsizei(queries.count), &queries)
    }
}

/// Waits until the GPU has finished everything submitted (benchmarks only).
public func finishGPU() { glFinish() }
