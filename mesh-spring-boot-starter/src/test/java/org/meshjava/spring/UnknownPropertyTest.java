package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.openai.UpstreamEngine;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A {@code mesh.*} key the starter does not read fails the start, naming the key and the keys that
 * are read there, as {@code mesh serve --config} refuses one: left to Spring's default, a typo was
 * dropped without a word and the steward started on the default the key meant to replace.
 */
class UnknownPropertyTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.backends[0].name=small");

  private static final String UPSTREAM =
      "mesh.backends[1].name=remote,mesh.backends[1].type=upstream,"
          + "mesh.backends[1].base-url=http://127.0.0.1:21899/v1,mesh.backends[1].model=m";

  /** Regression: {@code mesh.journall} started a steward with its journal in memory. */
  @Test
  void aTypoAtTheTopLevel_failsTheStart_namingTheKeyAndTheKnownOnes() {
    runner
        .withPropertyValues("mesh.journall=/tmp/spring22-x/steward.journal")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh: unknown key 'journall'")
                    .hasStackTraceContaining("close-grace, default-joule-ceiling-uj"));
  }

  /** Regression: {@code mesh.snapshots.every-record} kept the default of 100 000. */
  @Test
  void aTypoInSnapshots_failsTheStart_namingTheKeyAndTheKnownOnes() {
    runner
        .withPropertyValues("mesh.snapshots.every-record=10")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("mesh.snapshots: unknown key 'every-record'")
                    .hasStackTraceContaining("[dir, enabled, every-records, every-s]"));
  }

  /** Regression: {@code uj-per-tokens} left the entry at the default cost of 100 µJ a token. */
  @Test
  void aTypoInABackendEntry_failsTheStart_namingTheEntryAndItsKeys() {
    runner
        .withPropertyValues("mesh.backends[0].uj-per-tokens=5")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.backends[0]: unknown key 'uj-per-tokens' for type 'reference'")
                    .hasStackTraceContaining("uj-per-token")
                    .hasStackTraceContaining("work-per-token"));
  }

  /** Regression: a typo'd {@code api-key-env} called the upstream without its key. */
  @Test
  void aTypoInAnUpstreamEntry_failsTheStart_namingTheEntryAndItsKeys() {
    runner
        .withPropertyValues(UPSTREAM.split(","))
        .withPropertyValues("mesh.backends[1].api-key-var=LLAMA_KEY")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.backends[1]: unknown key 'api-key-var' for type 'upstream'")
                    .hasStackTraceContaining("api-key-env"));
  }

  /**
   * Regression: a key another type reads was ignored on this one ({@code base-url} on a reference
   * entry, which the user perhaps meant as an upstream), as {@code mesh serve} refuses it.
   */
  @Test
  void aKeyOfAnotherBackendType_failsTheStart_namingTheType() {
    runner
        .withPropertyValues("mesh.backends[0].api-key-env=LLAMA_KEY")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.backends[0]: unknown key 'api-key-env' for type 'reference'"));
    runner
        .withPropertyValues(UPSTREAM.split(","))
        .withPropertyValues("mesh.backends[1].work-per-token=4")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.backends[1]: unknown key 'work-per-token' for type 'upstream'"));
  }

  /**
   * Spring's relaxed forms of a known key still bind, and start: camel case, and dashes left out or
   * moved, so {@code uj-pertoken} is {@code uj-per-token} to Spring, not a typo.
   */
  @Test
  void relaxedFormsOfKnownKeys_bind() {
    runner
        .withPropertyValues(
            "mesh.backends[0].uj-pertoken=5",
            "mesh.backends[0].ujPerOptionScored=7",
            "mesh.backends[0].workpertoken=4",
            "mesh.closeGrace=1s",
            "mesh.snapshots.every_records=10")
        .run(
            context ->
                assertThat(context.getBean(Steward.class).backends().get(0).costProfile())
                    .isEqualTo(new CostProfile(5, 7)));
  }

  /**
   * An entry that names no {@code uj-per-token} is priced as its engine's builder prices one left
   * unset, as {@code mesh serve} prices it: the starter and the library cannot drift apart.
   */
  @Test
  void anEntryNamingNoCost_isPricedAsItsEngineBuilderLeftUnset() {
    runner
        .withPropertyValues(UPSTREAM.split(","))
        .run(
            context -> {
              List<ServingEngine> backends = context.getBean(Steward.class).backends();
              assertThat(backends.get(0).costProfile())
                  .isEqualTo(ReferenceEngine.builder().build().costProfile());
              assertThat(backends.get(1).costProfile())
                  .isEqualTo(
                      UpstreamEngine.builder()
                          .name("remote")
                          .baseUri(URI.create("http://127.0.0.1:21899/v1"))
                          .model("m")
                          .build()
                          .costProfile());
            });
  }

  /**
   * Regression: a group's name with a dash moved ({@code snap-shots}, {@code back-ends}) is bound
   * by Spring as the group, as {@code uj-pertoken} is as its key, but its keys were refused as keys
   * under a single value.
   */
  @Test
  void relaxedFormsOfAGroupsName_bind() {
    runner
        .withPropertyValues("mesh.snap-shots.every-records=10", "mesh.back-ends[0].uj-per-token=5")
        .run(
            context -> {
              assertThat(context.getBean(MeshProperties.class).snapshots().everyRecords())
                  .isEqualTo(10);
              assertThat(context.getBean(Steward.class).backends().get(0).costProfile())
                  .isEqualTo(new CostProfile(5, 0));
            });
  }

  /**
   * Environment variables are not held to the keys: a Kubernetes service named {@code mesh} sets
   * {@code MESH_PORT} and {@code MESH_SERVICE_HOST} in every pod, which are not the starter's.
   */
  @Test
  void meshVariablesOfTheEnvironment_doNotFailTheStart() {
    runner
        .withInitializer(
            context ->
                context
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of("MESH_PORT", "tcp://10.0.0.1:80", "MESH_SERVICE_HOST", "x"))))
        .run(context -> assertThat(context).hasNotFailed());
  }

  /**
   * Regression: a list of backends is bound from one property source only (a profile's file
   * replaces the base file's list whole), but an entry's keys in the source Spring set aside were
   * held to the type of the same index in the list it bound, so a base file's upstream entry under
   * a profile that lists a reference backend failed the start on its {@code base-url}.
   */
  @Test
  void anEntryOfAListAnotherSourceReplaces_isHeldToItsOwnType() {
    runner
        .withInitializer(baseFileUpstream("base-url"))
        .run(
            context ->
                assertThat(context.getBean(Steward.class).backends().get(0).name())
                    .isEqualTo("small"));
  }

  /** A typo in an entry of a list another source replaces is still refused, for its own type. */
  @Test
  void aTypoInAnEntryAnotherSourceReplaces_failsTheStart_namingItsOwnType() {
    runner
        .withInitializer(baseFileUpstream("base-urll"))
        .run(UnknownPropertyTest::refusesBaseUrllForUpstream);
  }

  /** An entry's type given by a placeholder is the type it resolves to, as Spring binds it. */
  @Test
  void anEntrysTypeFromAPlaceholder_holdsItToThatType() {
    runner
        .withPropertyValues(
            "mesh.backends[0].type=${review22b.no-such-variable:upstream}",
            "mesh.backends[0].base-urll=http://127.0.0.1:21899/v1")
        .run(UnknownPropertyTest::refusesBaseUrllForUpstream);
  }

  private static void refusesBaseUrllForUpstream(AssertableApplicationContext context) {
    assertThat(context)
        .getFailure()
        .hasStackTraceContaining("mesh.backends[0]: unknown key 'base-urll' for type 'upstream'");
  }

  /**
   * Adds a file below the test's own properties, as a base file is, listing one upstream entry
   * whose URL is under {@code urlKey}.
   */
  private static ApplicationContextInitializer<ConfigurableApplicationContext> baseFileUpstream(
      String urlKey) {
    Map<String, Object> entry =
        Map.of(
            "mesh.backends[0].name",
            "remote",
            "mesh.backends[0].type",
            "upstream",
            "mesh.backends[0]." + urlKey,
            "http://127.0.0.1:21899/v1",
            "mesh.backends[0].model",
            "m");
    return context ->
        context
            .getEnvironment()
            .getPropertySources()
            .addLast(new MapPropertySource("base application.yml", entry));
  }

  /** A string where a number goes fails the start naming the key and the value. */
  @Test
  void aStringWhereANumberGoes_failsTheStart_namingTheKeyAndTheValue() {
    runner
        .withPropertyValues("mesh.backends[0].uj-per-token=five")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'mesh.backends[0].uj-per-token'")
                    .hasStackTraceContaining("five"));
  }
}
