package org.meshjava.openai;

import org.meshjava.bench.MicrosecondBenchmark;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The granted serve path without HTTP, side by side in one JVM: {@link #granted}, a chat body
 * carrying a {@code jcp_presentation} through the binding ({@code Endpoints.handle}: read, decode
 * the presentation, decide, journal in memory, serve on the reference engine, seal, reply
 * rendered); {@link #ungranted}, the same body with no presentation; and {@link #decode}, the
 * presentation's decode alone ({@link Presentation#fromHex}). So {@code granted - ungranted} is
 * what a grant costs a request, and the caller's signature check (one Ed25519 verification) is most
 * of it. Each granted body carries a fresh presentation, signed between iterations; {@code links}
 * picks a chain of one or two links. For a loaded machine, {@link GrantedServeTiming} measures the
 * same in thread CPU time. Run: {@code java -jar mesh-bench/target/benchmarks.jar
 * GrantedServeBenchmark}.
 */
public class GrantedServeBenchmark extends MicrosecondBenchmark {
  /** Bodies signed per iteration; more than a 1 s iteration serves on these machines. */
  private static final int POOL = 20_000;

  /** How many links the presented chain has. */
  @Param({"2"})
  public int links;

  private Steward steward;
  private Endpoints endpoints;
  private GrantedBodies bodies;
  private byte[] ungrantedBody;
  private String hex;
  private byte[][] pool;
  private int next;

  /** For JMH. */
  public GrantedServeBenchmark() {}

  /** The steward, the binding and the chain. */
  @Setup(Level.Trial)
  public void setup() throws Exception {
    steward = GrantedBodies.steward();
    endpoints = GrantedBodies.endpoints(steward);
    bodies = new GrantedBodies(steward.identity(), links);
    ungrantedBody = GrantedBodies.utf8(GrantedBodies.BODY);
    hex = bodies.presentationHex();
    pool = new byte[POOL][];
  }

  /** Signs this iteration's granted bodies, each once spendable. */
  @Setup(Level.Iteration)
  public void sign() throws Exception {
    for (int i = 0; i < POOL; i++) {
      pool[i] = bodies.next();
    }
    next = 0;
  }

  /** Closes the steward. */
  @TearDown(Level.Trial)
  public void close() {
    steward.close();
  }

  /** A granted serve; a body is never sent twice (a spent presentation is refused). */
  @Benchmark
  public RenderedReply granted() throws Exception {
    if (next == POOL) {
      throw new IllegalStateException("the iteration served more than " + POOL + " bodies");
    }
    return GrantedBodies.serve(endpoints, pool[next++]);
  }

  /** The same body, ungranted. */
  @Benchmark
  public RenderedReply ungranted() {
    return GrantedBodies.serve(endpoints, ungrantedBody);
  }

  /** The presentation's decode alone. */
  @Benchmark
  public Presentation decode() throws MalformedGrantException {
    return Presentation.fromHex(hex);
  }
}
