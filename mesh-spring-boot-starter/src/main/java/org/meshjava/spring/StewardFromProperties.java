package org.meshjava.spring;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;

/**
 * Builds the steward {@link MeshProperties} describe, as {@code mesh serve} builds it from its
 * configuration file: the key, the journal, the meter, and each backend with its operator caps (an
 * output cap of {@value #DEFAULT_MAX_OUTPUT_TOKENS} tokens unless the entry sets one).
 */
final class StewardFromProperties {
  /** {@code mesh serve}'s output cap for a backend whose entry sets none. */
  static final long DEFAULT_MAX_OUTPUT_TOKENS = 4096;

  private StewardFromProperties() {}

  /**
   * Builds the steward over the configured backends and then {@code engines}, letting each of
   * {@code customizers} adjust the builder last.
   *
   * @throws IllegalStateException naming the property at fault, or if there is no backend at all
   */
  static Steward build(
      MeshProperties p, List<ServingEngine> engines, List<StewardBuilderCustomizer> customizers)
      throws JournalException {
    List<ServingEngine> backends = new ArrayList<>();
    List<ServeLimits> caps = new ArrayList<>();
    for (int i = 0; i < p.backends().size(); i++) {
      MeshProperties.Backend b = p.backends().get(i);
      backends.add(engine(b, "mesh.backends[" + i + "]"));
      caps.add(cap(b));
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
    for (int i = 0; i < backends.size(); i++) {
      sb.backend(backends.get(i)).cap(backends.get(i).name(), caps.get(i));
    }
    engines.forEach(sb::backend);
    if (p.meter() == MeshProperties.Meter.ESTIMATOR) {
      sb.meter(new EstimatorMeter());
    }
    String journal = p.journal();
    if (journal != null) {
      sb.journal(FileJournal.open(journalFile(journal)));
    }
    customizers.forEach(c -> c.customize(sb));
    Steward steward = sb.build();
    customizers.forEach(c -> c.built(steward));
    return steward;
  }

  /**
   * {@code mesh.journal} as a file. A PostgreSQL URL, which {@code mesh serve} takes in the same
   * key, is refused here rather than opened as a file of that name: the starter does not depend on
   * the JDBC driver, and an application that wants the journal in a database opens it itself.
   */
  private static Path journalFile(String journal) {
    if (journal.startsWith("postgresql:") || journal.startsWith("postgres:")) {
      throw new IllegalStateException(
          "mesh.journal names a file; for a journal in PostgreSQL leave it unset, add"
              + " org.meshjava:mesh-journal-postgres and declare a StewardBuilderCustomizer bean"
              + " that calls builder.journal(PostgresJournal.open(PostgresLocation.parse(url),"
              + " builder.identity().toString()))");
    }
    return Path.of(journal);
  }

  /** A key file: the 32-byte Ed25519 seed as 64 hex digits ({@code mesh key generate}). */
  private static SigningKey key(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException("mesh.key-file " + file + " cannot be read: " + e, e);
    }
    try {
      return SigningKey.fromSeedHex(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "mesh.key-file " + file + " does not hold a 64-hex-digit Ed25519 seed", e);
    }
  }

  private static ServingEngine engine(MeshProperties.Backend b, String where) {
    Fidelity fidelity = fidelity(b.fidelity(), where);
    boolean upstream = b.type() == MeshProperties.BackendType.UPSTREAM;
    Long perToken = b.ujPerToken();
    CostProfile cost =
        CostProfile.perToken(perToken != null ? perToken : upstream ? 1000L : 100L)
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
          String key = System.getenv(keyEnv);
          if (key == null) {
            throw new IllegalStateException(
                where + ": environment variable " + keyEnv + " is not set");
          }
          ub.apiKey(key);
        }
        yield ub.build();
      }
    };
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

  private static Fidelity fidelity(String text, String where) {
    if (text.matches("F?[0-4]")) {
      return Fidelity.of(text.charAt(text.length() - 1) - '0');
    }
    throw new IllegalStateException(where + ": fidelity '" + text + "' is not F0-F4");
  }
}
