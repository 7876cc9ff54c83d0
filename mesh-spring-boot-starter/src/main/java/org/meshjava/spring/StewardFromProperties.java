package org.meshjava.spring;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.CreatedJournal;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.openai.ApiKeyVariable;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ChainHeadConflictException;
import org.meshjava.steward.RevocationFile;
import org.meshjava.steward.RevocationFileException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.meshjava.steward.UnknownChainHeadException;
import org.springframework.util.ClassUtils;

/**
 * Builds the steward {@link MeshProperties} describe, as {@code mesh serve} builds it from its
 * configuration file: the key, the journal and its snapshots, the meter, how long its close waits
 * for serves in flight, each backend with its operator caps (an output cap of {@value
 * #DEFAULT_MAX_OUTPUT_TOKENS} tokens unless the entry sets one), and the revocations to load once
 * it is built.
 */
final class StewardFromProperties {
  /** {@code mesh serve}'s output cap for a backend whose entry sets none. */
  static final long DEFAULT_MAX_OUTPUT_TOKENS = 4096;

  private StewardFromProperties() {}

  /**
   * Discovery with RAPL under {@code root}, checked before the journal opens, as {@code mesh serve
   * --rapl-root} checks it: a folder that is missing or holds no zone fails the start rather than
   * leaving every figure {@code Estimator} with one log line to say why, and so does a root beside
   * the estimator, which discovers nothing.
   *
   * @throws IllegalStateException naming mesh.rapl-root
   */
  private static DiscoveryOptions raplDiscovery(MeshProperties.Meter meter, Path root) {
    if (meter == MeshProperties.Meter.ESTIMATOR) {
      throw new IllegalStateException(
          "mesh.rapl-root says where counters are discovered, and mesh.meter=estimator discovers"
              + " none; drop one of the two");
    }
    try {
      return DiscoveryOptions.defaults().withCheckedRaplRoot(root);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("mesh.rapl-root: " + e.getMessage(), e);
    }
  }

  /**
   * Builds the steward over the configured backends and then {@code engines}, letting each of
   * {@code customizers} adjust the builder last.
   *
   * @param createdJournal holds the journal file this start creates, if it creates one, until the
   *     application has started: it is removed if the start fails first
   * @param upstreams holds the upstream engines built here, to be closed after the steward
   * @throws IllegalStateException naming the property at fault, or if there is no backend at all;
   *     whatever the start throws, it leaves no journal open behind it, nor a journal file it made
   */
  static Steward build(
      MeshProperties p,
      List<ServingEngine> engines,
      List<StewardBuilderCustomizer> customizers,
      @Nullable ClassLoader classLoader,
      SnapshotFolderHold snapshotFolder,
      CreatedJournalHold createdJournal,
      UpstreamEnginesHold upstreams) {
    List<ServingEngine> backends = new ArrayList<>();
    List<ServeLimits> caps = new ArrayList<>();
    for (int i = 0; i < p.backends().size(); i++) {
      MeshProperties.Backend b = p.backends().get(i);
      String where = "mesh.backends[" + i + "]";
      try {
        ServingEngine engine = engine(b, where);
        if (engine instanceof UpstreamEngine upstream) {
          upstreams.hold(upstream);
        }
        backends.add(engine);
        caps.add(cap(b));
      } catch (IllegalArgumentException e) {
        // A builder's refusal names its own setting (maxConcurrentServes must be positive: 0), not
        // the entry that gave it, as mesh serve's does.
        throw new IllegalStateException(where + ": " + e.getMessage(), e);
      }
    }
    if (backends.isEmpty() && engines.isEmpty()) {
      throw new IllegalStateException(
          "the steward has no backend: list one under mesh.backends or declare a ServingEngine bean");
    }
    Path keyFile = p.keyFile();
    Steward.Builder sb = keyFile == null ? Steward.ephemeral() : Steward.builder(key(keyFile));
    if (p.freshChain()) {
      sb.chainHead(ChainHead.GENESIS);
    }
    sb.closeGrace(p.closeGrace());
    Duration engineDeadline = p.engineDeadline();
    if (engineDeadline != null) {
      sb.engineDeadline(engineDeadline);
    }
    for (int i = 0; i < backends.size(); i++) {
      sb.backend(backends.get(i)).cap(backends.get(i).name(), caps.get(i));
    }
    engines.forEach(sb::backend);
    if (p.meter() == MeshProperties.Meter.ESTIMATOR) {
      sb.meter(new EstimatorMeter());
    }
    Path raplRoot = p.raplRoot();
    if (raplRoot != null) {
      sb.discovery(raplDiscovery(p.meter(), raplRoot));
    }
    Journal opened = journal(sb, p, classLoader, snapshotFolder, createdJournal);
    try {
      customizers.forEach(c -> c.customize(sb));
    } catch (RuntimeException | Error e) {
      // No steward took the journal yet, so none would ever close it: its lock would stay held,
      // and every later start in this process (a retried context) would be refused it.
      closeAfter(opened, e);
      throw e;
    }
    Steward steward = start(sb, p);
    try {
      Path revocations = p.revocations();
      if (revocations != null) {
        revoke(steward, revocations);
      }
      customizers.forEach(c -> c.built(steward));
    } catch (RuntimeException | Error e) {
      // Spring destroys only the beans it was handed: a steward that fails here is not one, so it
      // is closed here, releasing the journal's lock (and a discovered meter) for the next start.
      closeAfter(steward, e);
      throw e;
    }
    createdJournal.built();
    return steward;
  }

  /** Closes {@code resource} after {@code failure}, keeping a failed close as suppressed. */
  private static void closeAfter(@Nullable AutoCloseable resource, Throwable failure) {
    if (resource == null) {
      return;
    }
    try {
      resource.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Builds the steward, naming {@code mesh.fresh-chain} where the chain's start is refused. Unlike
   * {@code mesh serve --fresh-chain}, a property can be left standing in {@code application.yml};
   * the steward still refuses it once the journal records receipts (a fresh chain there would fork
   * the one callers hold, SPEC.md 60.6), and this says which line to remove rather than the
   * builder's {@code chainHead}.
   *
   * @throws StewardStartException naming {@code mesh.journal}, where the journal cannot be
   *     replayed, as {@link #journal} throws where it cannot be opened
   * @throws IllegalStateException naming {@code mesh.key-file} and the file it names, where the
   *     journal or its snapshot is another identity's ({@link StewardStartException} its cause)
   * @throws IllegalStateException naming {@code mesh.fresh-chain}: set over a journal that records
   *     receipts ({@link ChainHeadConflictException} its cause), or needed and not set ({@link
   *     UnknownChainHeadException} its cause)
   */
  private static Steward start(Steward.Builder sb, MeshProperties p) {
    try {
      return sb.build();
    } catch (ChainHeadConflictException e) {
      if (!p.freshChain() || !e.given().equals(ChainHead.GENESIS)) {
        throw e; // a customizer's chainHead, which the property did not set
      }
      throw new IllegalStateException(
          "mesh.fresh-chain is set, and the journal already records receipts (up to "
              + e.lastRecorded()
              + "): the chain continues from them, and starting it again at 0 would fork it."
              + " Remove mesh.fresh-chain from the configuration; it belongs to a key's first"
              + " start only (say it for that start alone: --mesh.fresh-chain=true)",
          e);
    } catch (StewardStartException e) {
      Path keyFile = p.keyFile();
      if (keyFile == null || !e.anotherIdentity()) {
        // Not the key's fault (a keyless start on records is refused in openJournal): the
        // journal's, named by its property as a refusal at open is.
        throw p.journal() == null
            ? e
            : e.journalException()
                .map(j -> new StewardStartException("mesh.journal: " + e.getMessage(), j))
                .orElse(e);
      }
      // The steward's words say "the key that wrote it", in no interface's terms: this names the
      // property that gives the key, and the file it named. Conditional: a snapshot replaced by
      // another steward's is refused the same way under the right key.
      throw new IllegalStateException(
          "mesh.journal, or its latest snapshot, is another steward's than mesh.key-file "
              + keyFile
              + "'s: if that file is not the key that wrote the journal, set mesh.key-file to"
              + " the key that wrote it, or name a new journal in mesh.journal ("
              + e.getMessage()
              + ")",
          e);
    } catch (UnknownChainHeadException e) {
      throw new IllegalStateException(
          "the journal records no receipt of mesh.key-file's key, so where its receipt chain"
              + " stands is unknown; if this key has never sealed a receipt, start it at 0 with"
              + " mesh.fresh-chain=true for this one start (--mesh.fresh-chain=true on the"
              + " command line, so that no later start says it)",
          e);
    }
  }

  /**
   * Sets the journal {@code mesh.journal} names and, unless {@code mesh.snapshots.enabled} is
   * false, its snapshot store, as {@code mesh serve} does: a file with its snapshots in {@code
   * <journal>.snapshots/}, or a PostgreSQL database with them in the same database; {@code
   * mesh.snapshots.dir} puts them in a directory instead.
   */
  private static @Nullable Journal journal(
      Steward.Builder sb,
      MeshProperties p,
      @Nullable ClassLoader loader,
      SnapshotFolderHold snapshotFolder,
      CreatedJournalHold createdJournal) {
    String journal = p.journal();
    MeshProperties.Snapshots snaps = p.snapshots();
    if (journal == null) {
      if (snaps.dir() != null) {
        throw new IllegalStateException(
            "mesh.snapshots.dir keeps snapshots of a journal, and mesh.journal is not set (the"
                + " journal is in memory)");
      }
      return null;
    }
    if (journal.isBlank()) {
      // "journal:" with no value binds as an empty name, which no file has; left out, the journal
      // is in memory, a choice the configuration should say by leaving the key out.
      throw new IllegalStateException(
          "mesh.journal is empty: name the journal file (or a postgresql:// database), or remove"
              + " the key for a journal in memory");
    }
    try {
      return openJournal(sb, journal, p, loader, snapshotFolder, createdJournal);
    } catch (JournalException e) {
      // The journal's words name the file and the fault, not the setting that named the file, nor
      // (for a held one) what to do: it can only say "another steward process".
      String advice =
          e.reason() == JournalException.Reason.LOCKED
              ? "; stop the steward that holds it (another instance or context of this"
                  + " application, a running mesh serve, or a mesh journal import, archive or"
                  + " resume-grants), or give this one a journal of its own"
              : "";
      // The type a refusal at replay has (start below): a journal refused for what its last line
      // shows and one refused for what its middle shows are one failure to a caller.
      throw new StewardStartException("mesh.journal: " + e.getMessage() + advice, e);
    }
  }

  /** Opens the journal {@code journal} names, as {@link #journal} describes. */
  private static Journal openJournal(
      Steward.Builder sb,
      String journal,
      MeshProperties p,
      @Nullable ClassLoader loader,
      SnapshotFolderHold snapshotFolder,
      CreatedJournalHold createdJournal)
      throws JournalException {
    MeshProperties.Snapshots snaps = p.snapshots();
    if (POSTGRES_SCHEMES.stream().anyMatch(journal::startsWith)) {
      if (p.keyFile() == null) {
        throw new IllegalStateException(
            "mesh.journal is a PostgreSQL database, where a journal is named by the steward's"
                + " identity; set mesh.key-file so that it is the same at every start");
      }
      if (!ClassUtils.isPresent(POSTGRES_JOURNAL, loader)) {
        throw new IllegalStateException(
            "mesh.journal is a PostgreSQL database: add org.meshjava:mesh-journal-postgres to the"
                + " application's dependencies (it brings the JDBC driver)");
      }
      // Loaded only here, so that the starter runs without mesh-journal-postgres.
      return PostgresJournalFromProperties.open(sb, journal, snaps, snapshotFolder);
    }
    if (journal.matches("(?s)[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      // Taken as a file name, mysql://db/x would become a journal file mysql:/db/x. The URL is
      // not repeated: it may hold a password.
      throw new IllegalStateException(
          "mesh.journal is a file or a PostgreSQL database (postgresql://…), not a "
              + journal.substring(0, journal.indexOf(':'))
              + " URL");
    }
    Path file = Path.of(journal);
    boolean existed = Files.exists(file);
    if (!existed) {
      requireFolder(file);
    }
    // A snapshot folder kept elsewhere still proves a damaged one-line file a journal.
    Path elsewhere = snaps.enabled() ? snaps.dir() : null;
    FileJournal fileJournal =
        elsewhere != null ? FileJournal.open(file, elsewhere) : FileJournal.open(file);
    // Ours only if it was not there and held no record when locked: a file another steward made in
    // between is not this start's to remove. Said to be new only once the application started.
    CreatedJournal created = CreatedJournal.ifCreated(fileJournal, existed).orElse(null);
    Journal opened = fileJournal;
    if (created != null) {
      createdJournal.hold(created);
      opened = created;
    }
    long records = opened.position().count();
    if (p.keyFile() == null && records > 0) {
      // A journal's records are one identity's, and without a key file each start has its own:
      // left to the build, the start failed on the first record it could not reproduce, with words
      // ("edited or cut journal?", "remove the snapshot") that sent the operator after the file.
      opened.close();
      throw new IllegalStateException(
          "mesh.journal "
              + file
              + " already holds "
              + records
              + " records of an earlier start, and without mesh.key-file each start has a new"
              + " identity, which cannot continue another's journal. Set mesh.key-file to the key"
              + " that wrote it (mesh key generate makes one for a new journal), or name a new"
              + " journal");
    }
    sb.journal(opened);
    if (snaps.enabled()) {
      Path dir = snaps.dir();
      try {
        FileSnapshotStore store =
            dir != null ? new FileSnapshotStore(dir) : FileSnapshotStore.beside(file);
        snapshots(sb, claimed(store, file, snaps, snapshotFolder), snaps);
        // Noted only once claimed: a folder another steward holds is never this start's to
        // remove, and the claim removes only a folder it made.
        if (created != null) {
          created.snapshots(snapshotFolder.claim());
        }
      } catch (RuntimeException | Error e) {
        // No steward took the journal yet, so none would close it and release its lock.
        closeAfter(opened, e);
        throw e;
      }
    }
    return opened;
  }

  /**
   * Refuses a new journal file whose folder is not there, as {@code mesh serve} does: opening would
   * create the folder, so a mistyped folder in {@code mesh.journal} would start the steward on a
   * new, empty journal with every grant's spend back at zero.
   */
  private static void requireFolder(Path file) {
    FileJournal.missingFolder(file)
        .ifPresent(
            why -> {
              throw new IllegalStateException("mesh.journal " + file + ": " + why);
            });
  }

  /**
   * {@code store} once claimed for this steward, held by {@code snapshotFolder}, as {@code mesh
   * serve} claims its folder (SPEC.md 60.8, "One steward per folder"): two stewards saving into one
   * folder delete each other's snapshots, and each then refuses to restart from the one it finds.
   *
   * <p>Claimed for {@code journal}'s file where the journal is one (else null), so that a folder
   * holding another journal's snapshots is refused naming it.
   *
   * @throws IllegalStateException naming the folder (and {@code mesh.snapshots.dir} where it set
   *     it) if another steward holds it, it holds another journal's snapshots, or it cannot be
   *     locked
   */
  static FileSnapshotStore claimed(
      FileSnapshotStore store,
      @Nullable Path journal,
      MeshProperties.Snapshots snaps,
      SnapshotFolderHold snapshotFolder) {
    try {
      snapshotFolder.hold(journal != null ? store.claim(journal) : store.claim());
    } catch (org.meshjava.journal.SnapshotException e) {
      throw new IllegalStateException(
          (snaps.dir() != null
                  ? "mesh.snapshots.dir: "
                  : "the snapshot folder beside mesh.journal: ")
              + e.getMessage(),
          e);
    }
    return store;
  }

  /** Keeps snapshots in {@code store} at the cadence {@code snaps} sets. */
  static void snapshots(Steward.Builder sb, SnapshotStore store, MeshProperties.Snapshots snaps) {
    sb.snapshots(store)
        .snapshotEvery(snaps.everyRecords())
        .snapshotInterval(Duration.ofSeconds(snaps.everyS()));
  }

  /** The URL forms {@code PostgresLocation.isPostgres} takes, told apart without loading it. */
  private static final List<String> POSTGRES_SCHEMES =
      List.of("postgresql://", "postgres://", "jdbc:postgresql://");

  /** Present when {@code org.meshjava:mesh-journal-postgres} is on the class path. */
  private static final String POSTGRES_JOURNAL = "org.meshjava.journal.postgres.PostgresJournal";

  /**
   * Loads {@code mesh.revocations} into the built steward, as {@code mesh serve --revocations}
   * does, with the steward's {@link RevocationFile}: each non-blank line a revocation in hex,
   * verified and journalled in order.
   *
   * @throws IllegalStateException naming the file, and the line at fault: unreadable, not a
   *     revocation, refused (a forged signature, a revoker that issued no link), or not journalled
   */
  private static void revoke(Steward steward, Path file) {
    try {
      RevocationFile.load(steward, file, loaded -> {});
    } catch (RevocationFileException e) {
      throw new IllegalStateException("mesh.revocations " + e.getMessage(), e);
    }
  }

  /**
   * The most of a key file that is read: a key is 64 hex digits and a line end, so a file longer
   * than this is not a key file, and reading it whole (a device such as {@code /dev/zero}, a log
   * named by mistake) would fill the heap before the start could say so.
   */
  static final int MAX_KEY_FILE_BYTES = 4096;

  /** A key file: the 32-byte Ed25519 seed as 64 hex digits ({@code mesh key generate}). */
  private static SigningKey key(Path file) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
    } catch (java.nio.file.NoSuchFileException e) {
      // The README's application.yml names steward.key: a first start copied from it lands here,
      // so say how to make the file, and where it was looked for (a relative name is the
      // application's working folder's, which is not always the one the user has in mind).
      throw new IllegalStateException(
          "mesh.key-file "
              + file
              + " does not exist (looked for at "
              + file.toAbsolutePath()
              + "): make a key there with `mesh key generate --out "
              + file
              + "`, point mesh.key-file at the key this steward has used, or leave mesh.key-file"
              + " out for an identity that lasts this run only",
          e);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new IllegalStateException(
          "mesh.key-file "
              + file
              + " cannot be read by this process's user (permission denied): let it read the"
              + " file (mesh key generate writes it readable by its owner only)",
          e);
    } catch (IOException e) {
      throw new IllegalStateException("mesh.key-file " + file + " cannot be read: " + e, e);
    }
    if (bytes.length > MAX_KEY_FILE_BYTES) {
      throw new IllegalStateException(
          "mesh.key-file "
              + file
              + " is longer than "
              + MAX_KEY_FILE_BYTES
              + " bytes, so it holds no key (a key file is 64 hex digits, from mesh key"
              + " generate): is it the right file?");
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    // An editor's byte order mark (Notepad writes one) is no part of the key; mesh serve's key
    // reader drops it too, so the same key file starts both.
    if (text.startsWith("\uFEFF")) {
      text = text.substring(1);
    }
    try {
      return SigningKey.fromSeedHex(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "mesh.key-file " + file + " does not hold a key: " + e.getMessage(), e);
    }
  }

  private static ServingEngine engine(MeshProperties.Backend b, String where) {
    Fidelity fidelity = fidelity(b.fidelity(), where);
    boolean upstream = b.type() == MeshProperties.BackendType.UPSTREAM;
    Long perToken = b.ujPerToken();
    // An entry that names no cost gets the engine builder's own default, read from the engine so
    // the two cannot drift.
    CostProfile cost =
        CostProfile.perToken(
                perToken != null
                    ? perToken
                    : (upstream
                            ? UpstreamEngine.DEFAULT_COST_PROFILE
                            : ReferenceEngine.DEFAULT_COST_PROFILE)
                        .ujPerToken())
            .withOptionCost(b.ujPerOptionScored());
    String recipe = b.recipe();
    return switch (b.type()) {
      case REFERENCE -> {
        ReferenceEngine.Builder rb =
            ReferenceEngine.builder()
                .name(b.name())
                .fidelity(fidelity)
                .costProfile(cost)
                .workPerToken(b.workPerToken());
        if (recipe != null) {
          rb.recipe(Recipe.of(recipe));
        }
        rb.concurrency(concurrency(b, where));
        yield rb.build();
      }
      case UPSTREAM -> {
        String baseUrl = b.baseUrl();
        String model = b.model();
        if (baseUrl == null || model == null) {
          throw new IllegalStateException(where + " (upstream) needs base-url and model");
        }
        UpstreamEngine.Builder ub =
            UpstreamEngine.builder()
                .name(b.name())
                .baseUri(URI.create(baseUrl))
                .model(model)
                .fidelity(fidelity)
                .costProfile(cost)
                .deterministic(b.deterministic())
                .timeout(Duration.ofSeconds(b.timeoutS()));
        if (recipe != null) {
          ub.recipe(Recipe.of(recipe));
        }
        Integer inFlight = b.maxConcurrentServes();
        if (inFlight != null) {
          ub.maxConcurrentServes(inFlight);
        }
        if (b.maxWaitingServes() != null) {
          throw new IllegalStateException(
              where
                  + " (upstream): max-waiting-serves applies to local engines; an upstream"
                  + " queues no serve (max-concurrent-serves bounds it)");
        }
        String keyEnv = b.apiKeyEnv();
        if (keyEnv != null) {
          ub.apiKey(apiKey(keyEnv, System.getenv(keyEnv), where));
        }
        yield ub.build();
      }
    };
  }

  /**
   * The bearer token that environment variable {@code name} holds ({@code value}), refused as
   * {@code mesh serve} refuses it ({@link ApiKeyVariable}: unset, empty, blank or with a line
   * break; never the value, nor a name that may be the key) after {@code where}.
   */
  static String apiKey(String name, @Nullable String value, String where) {
    try {
      return ApiKeyVariable.value("api-key-env", name, value);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(where + ": " + e.getMessage(), e);
    }
  }

  /**
   * A reference engine's bounds: the library's default ({@link ServeConcurrency#cpuDefault()}) with
   * whatever the entry sets.
   */
  private static ServeConcurrency concurrency(MeshProperties.Backend b, String where) {
    ServeConcurrency c = ServeConcurrency.cpuDefault();
    try {
      Integer running = b.maxConcurrentServes();
      if (running != null) {
        c = c.withMaxConcurrentServes(running);
      }
      Integer waiting = b.maxWaitingServes();
      if (waiting != null) {
        c = c.withMaxWaitingServes(waiting);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(where + ": " + e.getMessage(), e);
    }
    return c;
  }

  private static ServeLimits cap(MeshProperties.Backend b) {
    ServeLimits cap = ServeLimits.NONE.withMaxOutputTokens(b.maxOutputTokens());
    Long prompt = b.maxPromptTokens();
    if (prompt != null) {
      cap = cap.withMaxPromptTokens(prompt);
    }
    Long ceiling = b.maxJouleCeilingUj();
    if (ceiling != null) {
      cap = cap.withMaxJouleCeilingUj(ceiling);
    }
    return cap;
  }

  static Fidelity fidelity(String text, String where) {
    return Fidelity.parse(text)
        .orElseThrow(
            () -> new IllegalStateException(where + ": fidelity '" + text + "' is not F0-F4"));
  }
}
