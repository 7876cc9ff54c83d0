package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An upstream's {@code api-key-env} is held to {@code mesh serve}'s rules for {@code api_key_env}:
 * a variable that is unset, empty, blank or holds a line break stops the start naming the entry and
 * the variable; the value is never repeated, nor a "name" that is not one of capitals, digits and
 * {@code _}, which is most often the key itself written where its variable's name belongs.
 */
class ApiKeyEnvRulesTest {
  /** What the key of the tests looks like; no environment holds a variable of that name. */
  private static final String KEY_AS_NAME = "sk-live-4f9a1c77e2b04d1d";

  /**
   * Regression: the refusal repeated the setting's text, so a key written in place of its
   * variable's name went into the start's failure, and every log that keeps one.
   */
  @Test
  void aKeyWrittenAsTheVariablesName_isNotRepeated() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
        .withPropertyValues(
            "mesh.meter=estimator",
            "mesh.backends[0].name=remote",
            "mesh.backends[0].type=upstream",
            "mesh.backends[0].base-url=http://127.0.0.1:1/v1",
            "mesh.backends[0].model=m",
            "mesh.backends[0].api-key-env=" + KEY_AS_NAME)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "mesh.backends[0]: environment variable that api-key-env names (not"
                            + " repeated")
                    .hasStackTraceContaining("is not set")
                    .satisfies(
                        failure -> assertThat(stackTrace(failure)).doesNotContain(KEY_AS_NAME)));
  }

  /**
   * Regression: a variable set but empty or blank was sent on as the key, which the engine's
   * builder refused in words naming neither the entry nor the variable ("apiKey is empty or
   * blank"); one holding a line break likewise.
   */
  @Test
  void anEmptyBlankOrMultiLineVariable_isRefused_namingTheEntryAndTheVariable() {
    assertThatThrownBy(() -> StewardFromProperties.apiKey("LLAMA_KEY", "", "mesh.backends[1]"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "mesh.backends[1]: environment variable LLAMA_KEY is set but empty; set it to the key");
    assertThatThrownBy(() -> StewardFromProperties.apiKey("LLAMA_KEY", " \t", "mesh.backends[1]"))
        .hasMessageContaining("LLAMA_KEY is set but blank");
    assertThatThrownBy(
            () -> StewardFromProperties.apiKey("LLAMA_KEY", "sk-secret\n", "mesh.backends[1]"))
        .hasMessageContaining("LLAMA_KEY holds a line break")
        .message()
        .doesNotContain("sk-secret");
    assertThatThrownBy(() -> StewardFromProperties.apiKey("", null, "mesh.backends[1]"))
        .hasMessage(
            "mesh.backends[1]: api-key-env is empty; name the environment variable that holds the"
                + " key");
    assertThat(StewardFromProperties.apiKey("LLAMA_KEY", "sk-ok", "mesh.backends[1]"))
        .isEqualTo("sk-ok");
  }

  /**
   * A backend's {@code fidelity} is read by {@link org.meshjava.core.Fidelity#parse}, as {@code
   * mesh serve} reads its configuration's: the name or the level alone, anything else refused
   * naming the entry.
   */
  @Test
  void aFidelityIsTheNameOrTheLevel_anythingElseIsRefusedNamingTheEntry() {
    assertThat(StewardFromProperties.fidelity("F3", "mesh.backends[0]"))
        .isEqualTo(org.meshjava.core.Fidelity.F3);
    assertThat(StewardFromProperties.fidelity("3", "mesh.backends[0]"))
        .isEqualTo(org.meshjava.core.Fidelity.F3);
    for (String bad : new String[] {"f3", "F5", "F03", " F3", ""}) {
      assertThatThrownBy(() -> StewardFromProperties.fidelity(bad, "mesh.backends[1]"))
          .as(bad)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("mesh.backends[1]: fidelity '" + bad + "' is not F0-F4");
    }
  }

  private static String stackTrace(Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    return w.toString();
  }
}
