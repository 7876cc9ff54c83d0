package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeConcurrency;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.metrics.StewardObservations;
import org.meshjava.spring.actuate.MeshHealthAutoConfiguration;
import org.meshjava.spring.actuate.MeshMetricsAutoConfiguration;
import org.meshjava.spring.actuate.StewardHealthIndicator;
import org.meshjava.spring.ai.MeshSpringAiAutoConfiguration;
import org.meshjava.steward.Steward;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's auto-configuration, one small context per case (no application started). */
class MeshAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MeshAutoConfiguration.class,
                  MeshSpringAiAutoConfiguration.class,
                  MeshMetricsAutoConfiguration.class,
                  MeshHealthAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator");

  @Test
  void keyFileAndJournal_giveADurableIdentity_andClosingReleasesTheJournal(@TempDir Path dir)
      throws Exception {
    SigningKey key = SigningKey.generate();
    Path keyFile = dir.resolve("steward.key");
    Files.writeString(
        keyFile, HexFormat.of().formatHex(key.exportSeed()) + "\n", StandardCharsets.US_ASCII);
    String[] props = {
      "mesh.key-file=" + keyFile,
      "mesh.journal=" + dir.resolve("steward.journal"),
      "mesh.backends[0].name=small"
    };

    runner
        .withPropertyValues(props)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(
            context -> {
              Steward steward = context.getBean(Steward.class);
              assertThat(steward.identity()).isEqualTo(DidKey.of(key.verificationKey()));
              assertThat(steward.grantsNeedDurableJournal()).isEmpty();
              assertThat(steward.meter()).isInstanceOf(EstimatorMeter.class);
              PromptText prompt = PromptText.of("journalled");
              steward.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
            });
    // The first context closed its steward, so the journal's lock is free for the next one, which
    // continues the chain its journal records.
    runner
        .withPropertyValues(props)
        .run(
            context ->
                assertThat(context.getBean(Steward.class).head().nextSequence()).isEqualTo(1));
  }

  @Test
  void noBackendAnywhere_failsTheStart_sayingWhatToAdd() {
    runner.run(context -> failsNaming(context, "mesh.backends", "ServingEngine bean"));
  }

  @Test
  void badFidelity_namesTheEntry() {
    runner
        .withPropertyValues("mesh.backends[0].name=small", "mesh.backends[0].fidelity=F9")
        .run(context -> failsNaming(context, "mesh.backends[0]", "F9"));
  }

  @Test
  void aReferenceEntrysConcurrencyKeys_boundItsServes() {
    runner
        .withPropertyValues(
            "mesh.backends[0].name=bounded",
            "mesh.backends[0].max-concurrent-serves=1",
            "mesh.backends[0].max-waiting-serves=0",
            "mesh.backends[1].name=unset")
        .run(
            context -> {
              ServingEngine bounded = context.getBean(Steward.class).backends().get(0);
              ServingEngine unset = context.getBean(Steward.class).backends().get(1);
              assertThat(bounded.maxConcurrentServes()).isEqualTo(1);
              assertThat(bounded.maxWaitingServes()).isZero();
              // Unset, the library's defaults hold: one serve per core, any number waiting.
              assertThat(unset.maxConcurrentServes())
                  .isEqualTo(ServeConcurrency.cpuDefault().maxConcurrentServes());
              assertThat(unset.maxWaitingServes()).isEqualTo(ServeConcurrency.UNBOUNDED);
            });
  }

  @Test
  void maxWaitingServesOnAnUpstream_isRefusedNamingTheEntry() {
    runner
        .withPropertyValues(
            "mesh.backends[0].name=remote",
            "mesh.backends[0].type=upstream",
            "mesh.backends[0].base-url=http://127.0.0.1:9/v1",
            "mesh.backends[0].model=m",
            "mesh.backends[0].max-waiting-serves=2")
        .run(context -> failsNaming(context, "mesh.backends[0]", "max-waiting-serves"));
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

  /**
   * Regression: a value a builder refuses (an upstream's max-concurrent-serves of 0, a negative
   * cost) failed the start with the builder's words only ("maxConcurrentServes must be positive:
   * 0"), naming no property.
   */
  @Test
  void aValueTheEnginesBuilderRefuses_namesTheEntry() {
    runner
        .withPropertyValues(
            "mesh.backends[0].name=small",
            "mesh.backends[1].name=remote",
            "mesh.backends[1].type=upstream",
            "mesh.backends[1].base-url=http://127.0.0.1:9/v1",
            "mesh.backends[1].model=m",
            "mesh.backends[1].max-concurrent-serves=0")
        .run(context -> failsNaming(context, "mesh.backends[1]", "maxConcurrentServes"));
    runner
        .withPropertyValues("mesh.backends[0].name=small", "mesh.backends[0].work-per-token=-1")
        .run(context -> failsNaming(context, "mesh.backends[0]", "workPerToken"));
  }

  @Test
  void servingEngineBeansAndCustomizers_joinTheConfiguredBackends() {
    runner
        .withPropertyValues("mesh.backends[0].name=small")
        .withBean("onnx", ServingEngine.class, () -> ReferenceEngine.builder().name("bean").build())
        .withBean(
            StewardBuilderCustomizer.class,
            () -> b -> b.backend(ReferenceEngine.builder().name("customized").build()))
        .run(
            context ->
                assertThat(context.getBean(Steward.class).backends())
                    .extracting(ServingEngine::name)
                    .containsExactly("small", "bean", "customized"));
  }

  @Test
  void anApplicationsOwnSteward_wins_andSpringAiCanBeSwitchedOff() {
    Steward own =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceEngine.builder().name("own").build())
            .build();
    runner
        .withBean(Steward.class, () -> own)
        .withPropertyValues("mesh.spring-ai=false")
        .run(
            context -> {
              assertThat(context.getBean(Steward.class)).isSameAs(own);
              assertThat(context).doesNotHaveBean(ChatModel.class);
            });
    own.close();
  }

  @Test
  void withTheApplicationsRegistries_servesAreMeteredAndObserved() {
    TestObservationRegistry observations = TestObservationRegistry.create();
    runner
        .withPropertyValues("mesh.backends[0].name=small")
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(ObservationRegistry.class, () -> observations)
        .run(
            context -> {
              Steward steward = context.getBean(Steward.class);
              PromptText prompt = PromptText.of("metered");
              steward.serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);

              MeterRegistry meters = context.getBean(MeterRegistry.class);
              assertThat(meters.get("mesh.serves").tag("backend", "small").counter().count())
                  .isEqualTo(1);
              assertThat(meters.get("mesh.chain.head.sequence").gauge().value()).isEqualTo(1);
              TestObservationRegistryAssert.assertThat(observations)
                  .hasObservationWithNameEqualTo(StewardObservations.SERVE);
            });
  }

  @Test
  void withoutRegistries_nothingIsBound() {
    runner
        .withPropertyValues("mesh.backends[0].name=small")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(MeterRegistry.class)
                    .getBeans(StewardBuilderCustomizer.class)
                    .isEmpty());
  }

  /**
   * Regression: the starter had no property for {@code Steward.Builder.closeGrace}, so closing the
   * context always waited up to 30 s for a serve in flight.
   */
  @Test
  void closeGrace_boundsHowLongClosingWaitsForAServeInFlight() throws Exception {
    HeldEngine held = new HeldEngine("held");
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      runner
          .withPropertyValues("mesh.close-grace=200ms")
          .withBean(ServingEngine.class, () -> held)
          .run(
              context -> {
                Steward steward = context.getBean(Steward.class);
                Future<?> serve =
                    HeldEngine.serveOn(threads, steward, "held while the context closes");
                assertThat(held.running.await(10, TimeUnit.SECONDS)).isTrue();

                // Well past 200 ms, well short of the 30 s default.
                threads.submit(steward::close).get(10, TimeUnit.SECONDS);
                assertThat(serve).isNotDone();
              });
    } finally {
      held.release.countDown();
      threads.shutdown();
      assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aNegativeCloseGrace_failsTheStart_namingTheProperty() {
    runner
        .withPropertyValues("mesh.backends[0].name=small", "mesh.close-grace=-1s")
        .run(context -> failsNaming(context, "mesh.close-grace"));
  }

  @Test
  void health_isUp_andShowsWhyGrantsAreRefused_forAKeyWithoutAJournal(@TempDir Path dir)
      throws Exception {
    Path keyFile = dir.resolve("steward.key");
    Files.writeString(
        keyFile,
        HexFormat.of().formatHex(SigningKey.generate().exportSeed()),
        StandardCharsets.US_ASCII);
    runner
        .withPropertyValues(
            "mesh.key-file=" + keyFile, "mesh.fresh-chain=true", "mesh.backends[0].name=small")
        .run(
            context -> {
              Health health = context.getBean(StewardHealthIndicator.class).health();
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails())
                  .extracting("grants", InstanceOfAssertFactories.MAP)
                  .containsEntry("honoured", false)
                  .containsKey("refused_because");
            });
  }

  @Test
  void health_isDown_onceTheJournalTakesNoAppends(@TempDir Path dir) {
    runner
        .withPropertyValues(
            "mesh.journal=" + dir.resolve("steward.journal"), "mesh.backends[0].name=small")
        .run(
            context -> {
              Steward steward = context.getBean(Steward.class);
              steward.close(); // closes the journal: no more appends
              assertThat(context.getBean(StewardHealthIndicator.class).health().getStatus())
                  .isEqualTo(Status.DOWN);
            });
  }
}
