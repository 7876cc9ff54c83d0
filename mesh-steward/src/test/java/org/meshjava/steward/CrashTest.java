package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.testing.ChildJava;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.SealedReceipt;

/**
 * Real crash tests (§2.2, §8): a steward with a file journal runs in a child JVM, serving granted
 * requests from many threads, and is killed with SIGKILL at random moments; then the journal is
 * reopened and checked. A few kills run by default; {@code -Pslow} runs hundreds.
 */
class CrashTest {
  @TempDir Path dir;

  @Test
  void killedMidServe_restartsWithNoBudgetBack_everyHandedOutReceiptHeld_andTheChainWhole()
      throws Exception {
    crashLoop(3, 42);
  }

  @Test
  @Tag("slow")
  void hundredsOfKills() throws Exception {
    crashLoop(200, 7);
  }

  @Test
  void aSecondProcessCannotOpenAHeldJournal_butCanOnceTheHolderIsKilled() throws Exception {
    Path journal = dir.resolve("held.journal");
    Process holder =
        child(journal, "00", "00", dir.resolve("none"), dir.resolve("none.out"), 1, "hold");
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("HOLDING");
      assertThatThrownBy(() -> FileJournal.open(journal))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED);
                assertThat(e.getMessage()).contains(journal.toString());
              });
    } finally {
      holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    FileJournal.open(journal).close();
  }

  private void crashLoop(int kills, long seed) throws Exception {
    Random random = new Random(seed);
    SigningKey stewardKey = SigningKey.fromSeed(bytes(random));
    SigningKey org = SigningKey.fromSeed(bytes(random));
    SigningKey caller = SigningKey.fromSeed(bytes(random));
    long budget = 40_000_000;
    GrantChain root =
        Jcp.issueRoot(
            org,
            Jcp.identity(caller),
            budget,
            GrantFixture.NOW.minusSeconds(60),
            GrantFixture.NOW.plusSeconds(3600));
    GrantChain chain = Jcp.delegate(caller, root, Jcp.identity(stewardKey), budget);
    Path chainFile = dir.resolve("chain.hex");
    Files.writeString(chainFile, chain.toHex());
    Path journal = dir.resolve("steward.journal");
    Path handedOut = dir.resolve("handed-out.hex");
    HexFormat hex = HexFormat.of();
    for (int k = 0; k < kills; k++) {
      Process p =
          child(
              journal,
              hex.formatHex(stewardKey.exportSeed()),
              hex.formatHex(caller.exportSeed()),
              chainFile,
              handedOut,
              6,
              "serve");
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String first = out.readLine();
        assertThat(first).as("child started (kill %d)", k).startsWith("SERVING");
        Thread.sleep(100 + random.nextInt(400));
        p.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no flushing
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      }
      check(journal, handedOut, stewardKey, chain, budget, k);
    }
  }

  private void check(
      Path journal, Path handedOut, SigningKey stewardKey, GrantChain chain, long budget, int kill)
      throws Exception {
    JournalFile.Contents contents = JournalFile.read(journal);
    long debited = 0;
    long unresolvedCeilings = 0;
    FileJournal opened = FileJournal.open(journal);
    try (Steward s =
        GrantFixture.genesisIfNoReceipt(
                Steward.builder(stewardKey)
                    .meter(new org.meshjava.energy.EstimatorMeter())
                    .clock(java.time.InstantSource.fixed(GrantFixture.NOW))
                    .journal(opened)
                    .backend(org.meshjava.engine.ReferenceEngine.builder().name("ref").build()),
                opened)
            .build()) {
      // Every receipt that reached the caller was journalled first.
      List<String> lines = Files.exists(handedOut) ? Files.readAllLines(handedOut) : List.of();
      long handedOutUj = 0;
      for (String line : lines) {
        if (line.length() < 10 || (line.length() % 2) != 0) {
          continue; // the child died mid-write of this line: it never reached the caller whole
        }
        SealedReceipt r = Jcr1.open(Envelope.fromHex(line));
        assertThat(s.witness(r.receipt(), r.envelope()))
            .as("kill %d: receipt %d handed out but not held", kill, r.receipt().sequence())
            .isEqualTo(WitnessVerdict.HELD);
        handedOutUj += r.receipt().energy().uj();
      }
      for (JournalRecord rec : contents.records()) {
        if (rec.entry() instanceof JournalEntry.Debited d) {
          debited += d.debitedUj();
        }
      }
      unresolvedCeilings = s.unresolved().stream().mapToLong(u -> u.ceilingUj()).sum();
      // No grant got budget back: what is left is the budget less every debit and every in-flight
      // ceiling.
      for (GrantId link : chain.ids()) {
        var spend = s.spend().spend(link);
        assertThat(spend.debitedUj()).isEqualTo(debited);
        assertThat(spend.reservedUj()).isEqualTo(unresolvedCeilings);
      }
      assertThat(debited + unresolvedCeilings).isGreaterThanOrEqualTo(handedOutUj);
      assertThat(s.spend().remainingUj(chain))
          .isEqualTo(Math.max(0, budget - debited - unresolvedCeilings));
      // In-flight serves are surfaced: every authorisation without a debit.
      long authorised =
          contents.records().stream()
              .filter(r -> r.entry() instanceof JournalEntry.Authorised)
              .count();
      long debits =
          contents.records().stream()
              .filter(r -> r.entry() instanceof JournalEntry.Debited)
              .count();
      assertThat(s.unresolved()).hasSize((int) (authorised - debits));
      // The chain continues without a gap from the last recorded receipt.
      long sealedCount =
          contents.records().stream().filter(r -> r.entry() instanceof JournalEntry.Sealed).count();
      assertThat(s.head().nextSequence()).isEqualTo(sealedCount);
    }
  }

  private static byte[] bytes(Random r) {
    byte[] b = new byte[32];
    r.nextBytes(b);
    return b;
  }

  private static Process child(
      Path journal,
      String stewardSeed,
      String callerSeed,
      Path chain,
      Path out,
      int threads,
      String mode)
      throws Exception {
    List<String> cmd =
        ChildJava.command(
            List.of("-XX:+UseSerialGC", "-Xshare:auto"),
            CrashChild.class,
            journal.toString(),
            stewardSeed,
            callerSeed,
            chain.toString(),
            out.toString(),
            Integer.toString(threads),
            mode);
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }
}
