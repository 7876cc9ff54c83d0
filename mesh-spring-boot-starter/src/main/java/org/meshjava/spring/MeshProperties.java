package org.meshjava.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The steward's settings under {@code mesh.*} in {@code application.yml}: the keys of {@code mesh
 * serve}'s configuration file, in Spring's kebab case ({@code key_file} is {@code mesh.key-file}).
 * Relative paths are read against the working directory.
 *
 * @param keyFile the steward's key file ("mesh key generate"); absent: a fresh identity for this
 *     process, which honours grants over an in-memory journal
 * @param journal the decision journal: a file (in a folder that exists; a new file is logged as
 *     one), or a PostgreSQL database ("postgresql://user@host/db", as "mesh serve" takes it; needs
 *     mesh.key-file, since the journal there is named by the steward's identity, and
 *     org.meshjava:mesh-journal-postgres on the class path); absent: in memory, which survives
 *     nothing (a steward with a key file then honours no grant). A journal outlives a start, so it
 *     wants mesh.key-file: without one, a later start has a new identity and refuses a journal an
 *     earlier one wrote
 * @param snapshots the journal's snapshots (SPEC.md §60.8), kept whenever mesh.journal is set
 *     unless switched off
 * @param revocations a file of grant revocations to load at start ("mesh grant revoke" writes one;
 *     one hex line each): each is verified and journalled, and one that does not verify stops the
 *     start naming its line
 * @param freshChain start the key's receipt chain at 0 when its journal records none (the
 *     "--fresh-chain" flag of "mesh serve"): for a key's first start only, best said on that
 *     start's command line (--mesh.fresh-chain=true); once the journal records a receipt, a start
 *     that still says it fails, naming this property to remove
 * @param meter "discover" (the counters this machine can prove live) or "estimator" (figures that
 *     never depend on the machine)
 * @param raplRoot the powercap folder holding the intel-rapl:* energy counters, where it is not
 *     /sys/class/powercap (a container that mounts the host's elsewhere); with mesh.meter discover
 *     only, and checked at start: a folder that is missing or holds no intel-rapl zone fails it
 * @param defaultJouleCeilingUj the joule ceiling, in µJ, of a Spring AI chat that names none
 * @param backends the engines to serve with; "ServingEngine" beans join them
 * @param springAi whether to expose a Spring AI "ChatModel" when Spring AI is on the class path
 * @param metricsGrantIdTags tag grant spend and remaining budget with each grant's id (one series
 *     per grant) rather than summing them over grants; the "--metrics-grant-ids" flag of "mesh
 *     serve"
 * @param closeGrace how long closing the steward (when the context closes) waits for serves in
 *     flight to finish, each sealed and journalled, before it closes the journal anyway; a serve
 *     still running then seals nothing, and a granted one stays held at its joule ceiling until a
 *     later start resolves it (SPEC.md 60.1); 0 waits not at all
 * @param engineDeadline how long a serve waits for its engine before it is refused engine_failed
 *     and its grant debited the request's whole joule ceiling (the engine's work cannot be measured
 *     then); absent, the default: as long as the engine takes. Above zero when set
 */
@ConfigurationProperties("mesh")
public record MeshProperties(
    @Nullable Path keyFile,
    @Nullable String journal,
    @DefaultValue Snapshots snapshots,
    @Nullable Path revocations,
    @DefaultValue("false") boolean freshChain,
    @DefaultValue("discover") Meter meter,
    @Nullable Path raplRoot,
    @DefaultValue("1000000") long defaultJouleCeilingUj,
    @DefaultValue List<Backend> backends,
    @DefaultValue("true") boolean springAi,
    @DefaultValue("false") boolean metricsGrantIdTags,
    @DefaultValue("30s") Duration closeGrace,
    @Nullable Duration engineDeadline) {

  /** Validates and copies. */
  public MeshProperties {
    requireNonNegative("mesh.default-joule-ceiling-uj", defaultJouleCeilingUj);
    if (closeGrace.isNegative()) {
      throw new IllegalArgumentException("mesh.close-grace must be non-negative: " + closeGrace);
    }
    // Zero is refused rather than read as "none", which leaving the key out already says: a
    // deadline written as 0 to mean "at once" would otherwise switch the deadline off.
    if (engineDeadline != null && (engineDeadline.isNegative() || engineDeadline.isZero())) {
      throw new IllegalArgumentException(
          "mesh.engine-deadline must be above zero (leave it out for none): " + engineDeadline);
    }
    backends = List.copyOf(backends);
  }

  /**
   * Journal snapshots, {@code mesh serve}'s {@code snapshots} object: a restart loads the latest
   * and replays only the records after it. They are kept beside the journal unless {@code dir} says
   * where: in {@code <journal>.snapshots/} beside a file, in the table {@code
   * mesh_journal_snapshot} beside a journal in PostgreSQL.
   *
   * @param enabled keep snapshots of mesh.journal ("snapshots": false in "mesh serve"'s
   *     configuration is enabled: false); without them a restart replays the whole journal
   * @param dir the directory to keep the snapshots in, rather than beside the journal; needs
   *     mesh.journal
   * @param everyRecords write a snapshot once this many journal records were written since the last
   *     (0: none by count); one is also written when the steward closes
   * @param everyS write a snapshot this often, in seconds, when records were written (0: none by
   *     time)
   */
  public record Snapshots(
      @DefaultValue("true") boolean enabled,
      @Nullable Path dir,
      @DefaultValue("100000") long everyRecords,
      @DefaultValue("0") long everyS) {

    /** Validates the settings. */
    public Snapshots {
      requireNonNegative("mesh.snapshots.every-records", everyRecords);
      requireNonNegative("mesh.snapshots.every-s", everyS);
    }
  }

  /**
   * Refuses a negative count or amount, naming the property as it is written in {@code
   * application.yml}, so that a failed start says which setting to correct.
   */
  private static void requireNonNegative(String property, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(property + " must be non-negative: " + value);
    }
  }

  /** How the steward meters energy. */
  public enum Meter {
    /** Discover this machine's counters and prove them live; the estimator where none is. */
    DISCOVER,
    /** The estimator only: figures graded {@code Estimator}, the same on every machine. */
    ESTIMATOR
  }

  /** What kind of engine a backend entry builds. */
  public enum BackendType {
    /** The deterministic, weights-free {@code ReferenceEngine}. */
    REFERENCE,
    /** Any OpenAI-compatible server, forwarded to ({@code UpstreamEngine}). */
    UPSTREAM
  }

  /**
   * One backend, as an entry of {@code mesh serve}'s {@code backends}. Other engines (ONNX, Jlama,
   * your own) are declared as {@code ServingEngine} beans instead.
   *
   * @param type the engine kind
   * @param name the backend's name, which receipts and {@code model} carry
   * @param fidelity the advertised fidelity, {@code F0}–{@code F4}
   * @param ujPerToken the cost profile's µJ per token (default 100; an upstream's 1000)
   * @param ujPerOptionScored the cost profile's µJ per scored decision option
   * @param recipe the recipe name; default: the engine's own
   * @param workPerToken a reference engine's hashing rounds per token
   * @param baseUrl an upstream's base URL, e.g. {@code http://127.0.0.1:8000/v1}
   * @param model the upstream's model name
   * @param apiKeyEnv the environment variable holding the upstream's API key
   * @param deterministic whether the upstream is deterministic (replayable)
   * @param timeoutS the upstream's timeout in seconds
   * @param maxConcurrentServes serves run at once: an upstream's in flight (default 64), a
   *     reference engine's on the cores (default: the number of cores)
   * @param maxWaitingServes a reference engine's serves that may wait beyond those (default: any
   *     number; {@code mesh serve}'s default is 64); an upstream queues none, so it refuses the key
   * @param maxOutputTokens the operator's output cap on this backend
   * @param maxPromptTokens the operator's prompt cap on this backend
   * @param maxJouleCeilingUj the operator's joule-ceiling cap on this backend
   */
  public record Backend(
      @DefaultValue("reference") BackendType type,
      String name,
      @DefaultValue("F2") String fidelity,
      @Nullable Long ujPerToken,
      @DefaultValue("0") long ujPerOptionScored,
      @Nullable String recipe,
      @DefaultValue("16") int workPerToken,
      @Nullable String baseUrl,
      @Nullable String model,
      @Nullable String apiKeyEnv,
      @DefaultValue("false") boolean deterministic,
      @DefaultValue("60") long timeoutS,
      @Nullable Integer maxConcurrentServes,
      @Nullable Integer maxWaitingServes,
      @DefaultValue("4096") long maxOutputTokens,
      @Nullable Long maxPromptTokens,
      @Nullable Long maxJouleCeilingUj) {

    /** Validates the entry. */
    public Backend {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a mesh.backends entry has no name");
      }
    }
  }
}
