package org.meshjava.steward;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.meshjava.core.CostProfile;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;

/**
 * The process the crash tests kill. Args: journal, steward seed hex, caller seed hex, chain hex
 * file, handed-out file, threads, mode ({@code serve} or {@code hold}). In {@code serve} mode it
 * serves granted requests from many threads until killed, appending each envelope it hands out
 * to the handed-out file (one hex line, flushed) only after {@code serve} returned it. In {@code
 * hold} mode it opens the journal, prints {@code HOLDING} and sleeps.
 */
public final class CrashChild {
  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    Path journalPath = Path.of(args[0]);
    if (args.length > 6 && args[6].equals("hold")) {
      try (FileJournal j = FileJournal.open(journalPath)) {
        System.out.println("HOLDING");
        System.out.flush();
        Thread.sleep(600_000);
      }
      return;
    }
    SigningKey stewardKey = SigningKey.fromSeed(HexFormat.of().parseHex(args[1]));
    SigningKey caller = SigningKey.fromSeed(HexFormat.of().parseHex(args[2]));
    GrantChain chain = GrantChain.fromHex(Files.readString(Path.of(args[3])).strip());
    Path handedOut = Path.of(args[4]);
    int threads = Integer.parseInt(args[5]);
    FileJournal journal = FileJournal.open(journalPath);
    Steward steward =
        GrantFixture.genesisIfNoReceipt(
                Steward.builder(stewardKey)
                    .meter(new EstimatorMeter())
                    .clock(InstantSource.fixed(GrantFixture.NOW))
                    .journal(journal)
                    .backend(ReferenceEngine.builder().name("ref").costProfile(CostProfile.perToken(10)).workPerToken(64).build()),
                journal)
            .build();
    System.out.println("SERVING from " + steward.head().nextSequence());
    System.out.flush();
    AtomicLong counter = new AtomicLong();
    long salt = System.nanoTime();
    try (BufferedWriter out = Files.newBufferedWriter(handedOut, StandardCharsets.US_ASCII,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      Thread[] workers = new Thread[threads];
      for (int t = 0; t < threads; t++) {
        workers[t] = Thread.ofPlatform().start(() -> {
          while (true) {
            ServeRequest req = GrantFixture.request("crash " + salt + " " + counter.incrementAndGet(), 16, 5_000);
            try {
              var r = steward.serve(req, GrantFixture.payload(req), Jcp.present(caller, chain, req));
              synchronized (out) {
                out.write(r.envelope().hex());
                out.write('\n');
                out.flush();
              }
            } catch (GrantDeniedException e) {
              return; // budget exhausted
            } catch (Exception e) {
              e.printStackTrace();
              return;
            }
          }
        });
      }
      for (Thread w : workers) {
        w.join();
      }
    }
    System.out.println("EXHAUSTED");
  }
}
