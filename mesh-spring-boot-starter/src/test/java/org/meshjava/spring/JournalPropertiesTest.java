package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.postgres.PostgresJournal;
import org.meshjava.journal.postgres.PostgresLocation;
import org.meshjava.journal.postgres.PostgresSnapshotStore;
import org.meshjava.steward.ChainHeadConflictException;
import org.meshjava.steward.GrantDeniedException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.UnknownChainHeadException;
import org.meshjava.testpg.PostgresTestServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The journal's settings, as {@code mesh serve}'s configuration has them: {@code mesh.snapshots},
 * {@code mesh.revocations}, and {@code mesh.journal} as a PostgreSQL database (against a real
 * server, {@link PostgresTestServer}).
 */
@ExtendWith(OutputCaptureExtension.class)
class JournalPropertiesTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.backends[0].name=small");

  @TempDir Path dir;

  private Path journal() {
    return dir.resolve("steward.journal");
  }

  private static void serveOnce(Steward steward) throws Exception {
    PromptText prompt = PromptText.of("journalled");
    steward.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
  }

  /** Waits for the steward's background snapshot, failing if none comes within half a minute. */
  private static void awaitSnapshot(SnapshotStore store) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (store.latest().isEmpty()) {
      assertThat(System.nanoTime()).as("a snapshot in " + store.describe()).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /**
   * The context failed to start, and one exception of the failure's chain (the starter's own, which
   * keeps what it wraps as its cause) has a message naming every one of {@code words}.
   */
  private static void failsNaming(AssertableApplicationContext context, String... words) {
    assertThat(context).hasFailed();
    List<String> messages = new ArrayList<>();
    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    assertThat(messages).anySatisfy(m -> assertThat(m).contains(words));
  }

  /** A start with {@code props} succeeds, and its steward's next receipt is {@code next}. */
  private void startsWithTheChainAt(long next, String... props) {
    runner
        .withPropertyValues(props)
        .run(
            context ->
                assertThat(context.getBean(Steward.class).head().nextSequence()).isEqualTo(next));
  }

  private Path keyFile(SigningKey key) throws Exception {
    return keyFile("steward.key", key);
  }

  private Path keyFile(String name, SigningKey key) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(
        file, HexFormat.of().formatHex(key.exportSeed()) + "\n", StandardCharsets.US_ASCII);
    return file;
  }

  // ---- mesh.journal, a file ---------------------------------------------------------------------

  /**
   * Regression: a mistyped folder in {@code mesh.journal} was created, and the steward started on a
   * new, empty journal, with every grant's spend back at zero and nothing said.
   */
  @Test
  void aJournalInAMissingFolder_isRefusedNamingTheFolder_andMakesNothing() {
    Path folder = dir.resolve("jounral");
    Path journal = folder.resolve("steward.journal");
    runner
        .withPropertyValues("mesh.journal=" + journal)
        .run(
            context ->
                failsNaming(
                    context,
                    "mesh.journal " + journal,
                    "its folder " + folder + " does not exist",
                    "mkdir -p " + folder));
    assertThat(folder).doesNotExist();
  }

  /** Regression: a path under a file was refused as a missing folder, advising mkdir -p on it. */
  @Test
  void aJournalUnderAFile_isRefusedSayingItIsNoFolder() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "x");
    Path journal = file.resolve("steward.journal");
    runner
        .withPropertyValues("mesh.journal=" + journal)
        .run(
            context -> {
              failsNaming(context, "mesh.journal " + journal, file + " is a file, not a folder");
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain("mkdir");
              }
            });
    assertThat(Files.readString(file)).isEqualTo("x");
  }

  @Test
  void aNewJournalFile_isSaidOnce_andNotOnTheNextStart(CapturedOutput output) {
    String said = "starting a new journal at " + journal().toAbsolutePath();
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(output.getAll()).containsOnlyOnce(said);
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(output.getAll()).containsOnlyOnce(said);
  }

  // ---- mesh.snapshots --------------------------------------------------------------------------

  /** Regression: the starter kept no snapshots, so every restart replayed the whole journal. */
  @Test
  void aFileJournal_keepsSnapshotsBesideIt_byDefault() throws Exception {
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .run(
            context -> {
              serveOnce(context.getBean(Steward.class));
              // The default cadence (every 100 000 records) has written none yet.
              assertThat(FileSnapshotStore.beside(journal()).latest()).isEmpty();
            });
    // Closing the steward writes one, which the next start loads.
    assertThat(FileSnapshotStore.beside(journal()).latest()).isPresent();
  }

  @Test
  void snapshotsDirAndEveryRecords_putThemThere_asRecordsAreWritten() {
    Path snaps = dir.resolve("snaps");
    runner
        .withPropertyValues(
            "mesh.journal=" + journal(),
            "mesh.snapshots.dir=" + snaps,
            "mesh.snapshots.every-records=1")
        .run(
            context -> {
              serveOnce(context.getBean(Steward.class));
              awaitSnapshot(new FileSnapshotStore(snaps));
            });
    assertThat(FileSnapshotStore.beside(journal()).directory()).doesNotExist();
  }

  /**
   * Regression: the starter saved into its snapshot folder without claiming it, as {@code mesh
   * serve} does (SPEC.md 60.8, "One steward per folder"): two stewards on two journals given one
   * folder both started, and each save deleted the other's snapshots.
   */
  @Test
  void aSnapshotsDirAnotherStewardHolds_failsTheStart_andIsFreeAgainOnceItCloses() {
    Path snaps = dir.resolve("snaps");
    runner
        .withPropertyValues("mesh.journal=" + journal(), "mesh.snapshots.dir=" + snaps)
        .run(
            first -> {
              assertThat(first).hasNotFailed();
              runner
                  .withPropertyValues(
                      "mesh.journal=" + dir.resolve("other.journal"), "mesh.snapshots.dir=" + snaps)
                  .run(second -> failsNaming(second, "mesh.snapshots.dir", snaps.toString()));
            });
    // The first steward's close let the folder go, after saving its last snapshot there.
    assertThat(new java.io.File(snaps.toFile(), "steward.lock")).doesNotExist();
    runner
        .withPropertyValues(
            "mesh.journal=" + dir.resolve("other.journal"), "mesh.snapshots.dir=" + snaps)
        .run(context -> assertThat(context).hasNotFailed());
    // A start that fails after the claim (here on its revocations) lets the folder go too.
    runner
        .withPropertyValues(
            "mesh.journal=" + journal(),
            "mesh.snapshots.dir=" + snaps,
            "mesh.revocations=" + dir.resolve("missing.hex"))
        .run(context -> failsNaming(context, "mesh.revocations"));
    runner
        .withPropertyValues("mesh.journal=" + journal(), "mesh.snapshots.dir=" + snaps)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void snapshotsEveryS_writesThemByTime() {
    runner
        .withPropertyValues(
            "mesh.journal=" + journal(),
            "mesh.snapshots.every-records=0",
            "mesh.snapshots.every-s=1")
        .run(
            context -> {
              serveOnce(context.getBean(Steward.class));
              awaitSnapshot(FileSnapshotStore.beside(journal()));
            });
  }

  @Test
  void snapshotsSwitchedOff_keepNone() {
    runner
        .withPropertyValues("mesh.journal=" + journal(), "mesh.snapshots.enabled=false")
        .run(context -> serveOnce(context.getBean(Steward.class)));
    assertThat(FileSnapshotStore.beside(journal()).directory()).doesNotExist();
  }

  @Test
  void aSnapshotsDirWithoutAJournal_failsTheStart() {
    runner
        .withPropertyValues("mesh.snapshots.dir=" + dir.resolve("snaps"))
        .run(context -> failsNaming(context, "mesh.snapshots.dir", "mesh.journal"));
  }

  @Test
  void aNegativeCadence_failsTheStart_namingTheProperty() {
    runner
        .withPropertyValues("mesh.journal=" + journal(), "mesh.snapshots.every-s=-1")
        .run(context -> failsNaming(context, "mesh.snapshots.every-s"));
  }

  // ---- mesh.fresh-chain -----------------------------------------------------------------------

  /**
   * Regression: {@code mesh.fresh-chain} left in the configuration after a key's first start failed
   * every later start with the builder's {@code ChainHeadConflictException}, which says to drop
   * {@code mesh serve}'s flag and names no property. The start is still refused (a fresh chain over
   * receipts would fork it), now naming the property to remove; without it the chain continues.
   */
  @Test
  void freshChainLeftSet_overAJournalWithReceipts_failsTheStart_namingThePropertyToRemove()
      throws Exception {
    String[] props = {
      "mesh.key-file=" + keyFile(SigningKey.generate()), "mesh.journal=" + journal()
    };
    runner
        .withPropertyValues(props)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(context -> serveOnce(context.getBean(Steward.class)));

    runner
        .withPropertyValues(props)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(
            context -> {
              failsNaming(context, "mesh.fresh-chain is set", "up to 0", "Remove mesh.fresh-chain");
              assertThat(context.getStartupFailure())
                  .hasRootCauseInstanceOf(ChainHeadConflictException.class);
            });
    // The refused start let the journal go and wrote nothing: the next continues the chain.
    startsWithTheChainAt(1, props);
  }

  /**
   * Regression: a journal started with one mesh.key-file and then with another key's file was
   * refused in the steward's words ("start this steward with that key"), which name no setting: the
   * developer was not told that mesh.key-file is what names the key. Each refusal of another
   * identity's journal, its checkpoint or its snapshot, now names the property and the file given.
   */
  @Test
  void anotherKeysJournal_failsTheStart_namingKeyFileAndTheFileGiven() throws Exception {
    String journal = "mesh.journal=" + journal();
    runner
        .withPropertyValues("mesh.key-file=" + keyFile(SigningKey.generate()), journal)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(context -> serveOnce(context.getBean(Steward.class)));

    Path other = keyFile("other.key", SigningKey.generate());
    runner
        .withPropertyValues("mesh.key-file=" + other, journal)
        .run(context -> failsNaming(context, "mesh.key-file " + other, "the key that wrote it"));
    // Without the snapshot the refusal is the checkpoint's: named the same way.
    runner
        .withPropertyValues("mesh.key-file=" + other, journal, "mesh.snapshots.enabled=false")
        .run(context -> failsNaming(context, "mesh.key-file " + other, "the key that wrote it"));
  }

  /** A key's first start without the property is refused too, saying to set it for that start. */
  @Test
  void aKeysFirstStart_withoutFreshChain_failsTheStart_namingTheProperty() throws Exception {
    runner
        .withPropertyValues(
            "mesh.key-file=" + keyFile(SigningKey.generate()), "mesh.journal=" + journal())
        .run(
            context -> {
              failsNaming(context, "mesh.fresh-chain=true for this one start");
              assertThat(context.getStartupFailure())
                  .hasRootCauseInstanceOf(UnknownChainHeadException.class);
            });
  }

  // ---- mesh.revocations ------------------------------------------------------------------------

  @Test
  void revocations_areLoadedAtStart_andRefuseTheGrant() throws Exception {
    SigningKey stewardKey = SigningKey.generate();
    SigningKey org = SigningKey.generate();
    SigningKey caller = SigningKey.generate();
    Instant now = Instant.now();
    GrantChain root =
        Jcp.issueRoot(
            org, Jcp.identity(caller), 1_000_000, now.minusSeconds(60), now.plusSeconds(3600));
    GrantChain chain =
        Jcp.delegate(caller, root, DidKey.of(stewardKey.verificationKey()), 1_000_000);
    Revocation revocation = Revocation.sign(org, chain, now.minusSeconds(30));
    Path file = dir.resolve("revoked.hex");
    Files.writeString(file, "\n" + revocation.toHex() + "\n");

    runner
        .withPropertyValues(
            "mesh.key-file=" + keyFile(stewardKey),
            "mesh.journal=" + journal(),
            "mesh.fresh-chain=true",
            "mesh.revocations=" + file)
        .run(
            context -> {
              Steward steward = context.getBean(Steward.class);
              PromptText prompt = PromptText.of("granted");
              ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F0, 10_000);
              assertThatThrownBy(
                      () -> steward.serve(request, prompt, Jcp.present(caller, chain, request)))
                  .isInstanceOfSatisfying(
                      GrantDeniedException.class,
                      e -> assertThat(e.label()).isEqualTo(DenialLabel.REVOKED));
              assertThat(steward.revoke(revocation)).as("already recorded").isFalse();
            });
  }

  @Test
  void aLineThatIsNoRevocation_failsTheStart_namingIt_andReleasesTheJournal() throws Exception {
    Path file = dir.resolve("revoked.hex");
    Files.writeString(file, "\nnot a revocation\n");
    runner
        .withPropertyValues("mesh.journal=" + journal(), "mesh.revocations=" + file)
        .run(
            context ->
                failsNaming(context, "mesh.revocations " + file + " line 2: not a revocation: "));
    // The steward built before the failure was closed, so its journal's lock is free.
    runner
        .withPropertyValues("mesh.journal=" + journal())
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aRevocationsFileThatCannotBeRead_failsTheStart_namingIt() {
    Path file = dir.resolve("missing.hex");
    runner
        .withPropertyValues("mesh.revocations=" + file)
        .run(context -> failsNaming(context, "mesh.revocations " + file + " cannot be read: "));
  }

  // ---- mesh.journal: postgresql:// ------------------------------------------------------------

  /**
   * Regression: a {@code postgresql://} journal, which {@code mesh serve} takes, was refused, and
   * an application had to open it in a customizer.
   */
  @Test
  void aPostgresJournal_keepsRecordsAndSnapshotsInTheDatabase() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase());
    SigningKey key = SigningKey.generate();
    String[] props = {"mesh.key-file=" + keyFile(key), "mesh.journal=" + url};
    runner
        .withPropertyValues(props)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(context -> serveOnce(context.getBean(Steward.class)));

    PostgresLocation location = PostgresLocation.parse(url);
    String name = DidKey.of(key.verificationKey()).toString();
    assertThat(PostgresJournal.names(location)).containsExactly(name);
    assertThat(PostgresSnapshotStore.of(location, name).latest()).isPresent();
    // The next start continues the chain the database records, from that snapshot.
    startsWithTheChainAt(1, props);
  }

  @Test
  void aPostgresJournalWithASnapshotsDir_keepsTheSnapshotsThere() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String url = server.url(server.newDatabase());
    Path snaps = dir.resolve("snaps");
    runner
        .withPropertyValues(
            "mesh.key-file=" + keyFile(SigningKey.generate()),
            "mesh.journal=" + url,
            "mesh.fresh-chain=true",
            "mesh.snapshots.dir=" + snaps)
        .run(context -> serveOnce(context.getBean(Steward.class)));
    assertThat(new FileSnapshotStore(snaps).latest()).isPresent();
  }

  @Test
  void aPostgresJournalWithoutAKeyFile_failsTheStart_sayingWhy() {
    runner
        .withPropertyValues("mesh.journal=postgresql://mesh@127.0.0.1:19300/mesh")
        .run(context -> failsNaming(context, "mesh.journal", "mesh.key-file"));
  }

  @Test
  void aPostgresJournalWithoutTheModule_failsTheStart_namingIt() throws Exception {
    runner
        .withClassLoader(new FilteredClassLoader("org.meshjava.journal.postgres"))
        .withPropertyValues(
            "mesh.key-file=" + keyFile(SigningKey.generate()),
            "mesh.journal=postgresql://mesh@127.0.0.1:19300/mesh")
        .run(context -> failsNaming(context, "mesh.journal", "org.meshjava:mesh-journal-postgres"));
  }

  @Test
  void aJournalUrlOfAnotherScheme_failsTheStart_ratherThanNamingAFile() {
    runner
        .withPropertyValues("mesh.journal=mysql://db/mesh")
        .run(context -> failsNaming(context, "mesh.journal", "not a mysql URL"));
  }
}
