package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.meshjava.steward.WitnessVerdict;

/**
 * {@code mesh grant revoke}, {@code mesh serve --revocations} (its loader) and {@code mesh journal
 * resume-grants} (issue 13 items 3 and 4).
 */
class RevocationAndResumeCommandTest {
  @TempDir Path tmp;

  private final SigningKey stewardKey = SigningKey.generate();

  private Steward steward(Path journal) throws Exception {
    FileJournal opened = FileJournal.open(journal);
    Steward.Builder b =
        Steward.builder(stewardKey)
            .meter(new EstimatorMeter())
            .clock(InstantSource.fixed(Instant.now()))
            .journal(opened)
            .backend(ReferenceEngine.builder().name("ref").build());
    // This test key's chain starts at 0 while its journal records no receipt (SPEC 60.6).
    if (opened.recovered().stream()
        .noneMatch(r -> r.entry() instanceof org.meshjava.journal.JournalEntry.Sealed)) {
      b.chainHead(org.meshjava.receipt.ChainHead.GENESIS);
    }
    return b.build();
  }

  private static ServeRequest request(String prompt) {
    byte[] b = prompt.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return ServeRequest.generation(
        ContentId.ofBytes(b), b.length, new ServeBounds(4, Fidelity.F1, 100_000));
  }

  private Path key(String name) throws Exception {
    Path p = tmp.resolve(name);
    assertThat(mesh("key", "generate", "--out", p.toString()).code()).isZero();
    return p;
  }

  @Test
  void grantRevoke_writesAStatementTheStewardLoads_andRefusesANonIssuer() throws Exception {
    Path issuer = key("issuer.key");
    Path stranger = key("stranger.key");
    Path chain = tmp.resolve("grant.hex");
    String subject = Jcp.identity(stewardKey).value();
    assertThat(
            mesh(
                    "grant",
                    "issue",
                    "--issuer-key",
                    issuer.toString(),
                    "--subject",
                    subject,
                    "--budget-uj",
                    "1000000",
                    "--expires",
                    "PT1H",
                    "--out",
                    chain.toString())
                .code())
        .isZero();
    Path out = tmp.resolve("revocation.hex");
    Run r =
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            issuer.toString(),
            "--chain",
            chain.toString(),
            "--out",
            out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    Revocation statement = Revocation.fromHex(Files.readString(out).strip());
    statement.verify();
    assertThat(statement.grantId())
        .isEqualTo(GrantChain.fromHex(Files.readString(chain).strip()).leaf().id());

    Run refused =
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            stranger.toString(),
            "--chain",
            chain.toString(),
            "--out",
            tmp.resolve("no.hex").toString());
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err()).startsWith("mesh grant revoke: refused: ");
    assertThat(tmp.resolve("no.hex")).doesNotExist();

    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal)) {
      StringWriter said = new StringWriter();
      RevocationFile.load(s, out, new PrintWriter(said, true));
      assertThat(said.toString()).startsWith("revoked grant " + statement.grantId());
    }
    assertThat(JournalFile.read(journal).records())
        .filteredOn(x -> x.entry() instanceof JournalEntry.Revoked)
        .hasSize(1);
    Files.writeString(tmp.resolve("garbage.hex"), "not hex\n");
    try (Steward s = steward(journal)) {
      Path garbage = tmp.resolve("garbage.hex");
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> RevocationFile.load(s, garbage, new PrintWriter(new StringWriter())))
          .isInstanceOf(CliException.class)
          .hasMessageStartingWith(garbage + " line 1: not a revocation: ");
    }
  }

  @Test
  void journalResumeGrants_liftsAJournalledSuspension_andOnlyThen() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    ServeResult cut;
    try (Steward s = steward(journal)) {
      ServeRequest a = request("kept");
      s.serve(a, TokenSequence.of(new int[(int) a.promptTokens()]));
      ServeRequest b = request("cut");
      cut = s.serve(b, TokenSequence.of(new int[(int) b.promptTokens()]));
    }
    List<String> lines = Files.readAllLines(journal);
    // Cut the last receipt's record (and the closing checkpoint after it, SPEC.md §65).
    int last = lines.size() - 1;
    while (!lines.get(last).contains("\"type\":\"Sealed\"")) {
      last--;
    }
    Files.write(journal, lines.subList(0, last));
    try (Steward s = steward(journal)) {
      assertThat(s.witness(cut.receipt(), cut.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
    }
    // Regression: a journal of ungranted serves names its steward in no grant, and verify and
    // inspect checked the suspension's evidence against an identity made up for the replay.
    for (String command : List.of("verify", "inspect")) {
      Run read = mesh("journal", command, journal.toString());
      assertThat(read.code()).as(command + ": " + read.err()).isZero();
    }
    try (Steward s = steward(journal)) {
      assertThat(s.grantsSuspended()).isPresent();
      // While a steward holds the journal, the operator cannot write to it.
      Run locked = mesh("journal", "resume-grants", journal.toString(), "--note", "too early");
      assertThat(locked.code()).isEqualTo(1);
      assertThat(locked.err())
          .contains("held by another steward")
          .contains("stop it before lifting the suspension");
    }
    Run lifted =
        mesh("journal", "resume-grants", journal.toString(), "--note", "restored from backup");
    assertThat(lifted.code()).as(lifted.err()).isZero();
    assertThat(mesh("journal", "inspect", journal.toString()).out())
        .contains("Resumed grants: restored from backup");
    try (Steward s = steward(journal)) {
      assertThat(s.grantsSuspended()).isEmpty();
    }
    Run again = mesh("journal", "resume-grants", journal.toString(), "--note", "twice");
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).contains("not suspended");
  }

  /**
   * A journal restored from an older copy, then shown a later checkpoint of its steward's log
   * (SPEC.md §60.4): verify and inspect read the suspension it journals (a journal of ungranted
   * serves names its steward only by the checkpoint's origin), and resume-grants lifts it.
   */
  @Test
  void aSuspensionOnACheckpoint_isReadByVerifyAndInspect_andLiftedByResumeGrants()
      throws Exception {
    Path journal = tmp.resolve("steward.journal");
    Path copy = tmp.resolve("copy.journal");
    try (Steward s = steward(journal)) {
      ServeRequest a = request("before the copy");
      s.serve(a, TokenSequence.of(new int[(int) a.promptTokens()]));
    }
    Files.copy(journal, copy);
    org.meshjava.receipt.tlog.SignedNote later;
    try (Steward s = steward(journal)) {
      for (String prompt : List.of("after the copy 0", "after the copy 1")) {
        ServeRequest r = request(prompt);
        s.serve(r, TokenSequence.of(new int[(int) r.promptTokens()]));
      }
      later = s.checkpoint().orElseThrow();
    }
    Files.copy(copy, journal, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    try (Steward s = steward(journal)) {
      assertThat(s.witnessCheckpoint(later)).isEqualTo(WitnessVerdict.NOT_HELD);
    }
    Run verify = mesh("journal", "verify", journal.toString());
    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("grants are suspended").contains("shown a checkpoint");
    Run inspect = mesh("journal", "inspect", journal.toString());
    assertThat(inspect.code()).as(inspect.err()).isZero();
    assertThat(inspect.out()).contains("Suspended grants: shown checkpoint " + stewardId() + " 3 ");
    Run lifted =
        mesh("journal", "resume-grants", journal.toString(), "--note", "accepted the rollback");
    assertThat(lifted.code()).as(lifted.err()).isZero();
    try (Steward s = steward(journal)) {
      assertThat(s.grantsSuspended()).isEmpty();
    }
  }

  private String stewardId() {
    return org.meshjava.core.identity.DidKey.of(stewardKey.verificationKey()).value();
  }

  /**
   * Regression: {@code mesh journal import} copied a journal file its steward still held, so the
   * database missed what the steward appended meanwhile. A held file is now refused before anything
   * is read or any database reached.
   */
  @Test
  void journalImport_ofAFileAStewardHolds_isRefused_andOfAStoppedOneGoesOn() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    String did = DidKey.of(stewardKey.verificationKey()).toString();
    String nowhere = "postgresql://mesh@127.0.0.1:1/mesh?connectTimeout=2";
    try (Steward s = steward(journal)) {
      ServeRequest a = request("held");
      s.serve(a, TokenSequence.of(new int[(int) a.promptTokens()]));
      Run held = mesh("journal", "import", journal.toString(), "--to", nowhere, "--steward", did);
      assertThat(held.code()).isEqualTo(1);
      assertThat(held.err()).contains("held by").contains("stop it before importing");
    }
    byte[] before = Files.readAllBytes(journal);
    Run stopped = mesh("journal", "import", journal.toString(), "--to", nowhere, "--steward", did);
    assertThat(stopped.code()).isEqualTo(1);
    assertThat(stopped.err()).as("past the check, to the database").doesNotContain("held by");
    assertThat(Files.readAllBytes(journal)).as("the check changes nothing").isEqualTo(before);
  }

  /**
   * Regression: {@code mesh journal import} checked the file's lock for a moment and let it go
   * before the copy, so a steward started during the copy appended records the database never got
   * (and a second import ran alongside). The lock is now held until the copy ends: while the import
   * waits on its database, opening the journal (as {@code mesh serve} does) and a second import are
   * refused, and once it ends the journal opens again.
   */
  @Test
  void journalImport_holdsTheFilesLockThroughTheCopy() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    String did = DidKey.of(stewardKey.verificationKey()).toString();
    try (Steward s = steward(journal)) {
      ServeRequest a = request("copied");
      s.serve(a, TokenSequence.of(new int[(int) a.promptTokens()]));
    }
    // A "database" that takes the import's connection and says nothing until told to hang up.
    // Port 0: a free port the system picks, which no other run or program holds.
    try (java.net.ServerSocket database =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String url =
          "postgresql://mesh@127.0.0.1:"
              + database.getLocalPort()
              + "/mesh?sslmode=disable&connectTimeout=10&socketTimeout=60";
      java.util.concurrent.CompletableFuture<Run> importing =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> mesh("journal", "import", journal.toString(), "--to", url, "--steward", did));
      try (java.net.Socket reached = database.accept()) {
        assertThat(importing).isNotDone();
        assertThatThrownBy(() -> FileJournal.open(journal).close())
            .as("a steward started during the copy")
            .isInstanceOfSatisfying(
                org.meshjava.journal.JournalException.class,
                e ->
                    assertThat(e.reason())
                        .isEqualTo(org.meshjava.journal.JournalException.Reason.LOCKED));
        Run second = mesh("journal", "import", journal.toString(), "--to", url, "--steward", did);
        assertThat(second.code()).isEqualTo(1);
        assertThat(second.err())
            .contains("held by")
            .contains("mesh serve")
            .contains("stop it before importing");
      }
      Run first = importing.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(first.code()).as("the database hung up").isEqualTo(1);
    }
    FileJournal.open(journal).close(); // let go once the import ended
  }

  @Test
  void journalVerify_refusesADebitEditedAndRehashed() throws Exception {
    SigningKey caller = SigningKey.generate();
    Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
    GrantChain chain =
        Jcp.issueRoot(
            caller,
            Jcp.identity(stewardKey),
            1_000_000,
            now.minusSeconds(60),
            now.plusSeconds(3600));
    Path journal = tmp.resolve("steward.journal");
    try (Steward s = steward(journal)) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = request("granted " + i);
        s.serve(
            req,
            TokenSequence.of(new int[(int) req.promptTokens()]),
            Jcp.present(caller, chain, req));
      }
    }
    assertThat(mesh("journal", "verify", journal.toString()).code()).isZero();
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(journal));
    int debit = -1;
    for (int i = 0, seen = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("\"type\":\"Debited\"") && seen++ == 1) {
        debit = i;
      }
    }
    lines.set(debit, lines.get(debit).replaceFirst("\"debited_uj\":\\d+", "\"debited_uj\":1"));
    for (int i = debit + 1; i < lines.size(); i++) {
      String prev =
          ContentId.ofBytes(lines.get(i - 1).getBytes(java.nio.charset.StandardCharsets.UTF_8))
              .hex();
      lines.set(
          i, lines.get(i).replaceFirst("\"prev\":\"[0-9a-f]{64}\"", "\"prev\":\"" + prev + "\""));
    }
    Files.write(journal, lines);
    Run v = mesh("journal", "verify", journal.toString());
    assertThat(v.code()).isEqualTo(1);
    assertThat(v.err())
        .contains("journal record " + (debit + 1))
        .contains("signed receipt")
        .contains("estimated ")
        .doesNotContain("Energy[")
        .doesNotContain("OptionalLong");
  }

  @Test
  void serveConfig_namesARevocationsFile_resolvedAgainstItsDirectory() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("conf"));
    Path file = dir.resolve("serve.json");
    Files.writeString(file, "{\"revocations\": \"revoked.hex\"}");
    assertThat(ServeConfig.read(file).revocations())
        .contains(dir.toAbsolutePath().resolve("revoked.hex"));
    assertThat(ServeConfig.empty().revocations()).isEmpty();
  }
}
