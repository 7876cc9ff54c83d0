package org.meshjava.engine.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OrtEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The second reference to ONNX Runtime's environment is reached through names inside the library; a
 * version that renames them would silently take none, and a stop while a session is created could
 * crash the JVM again (see {@link OrtEnvironmentPin}). This says so at the upgrade.
 */
class OrtEnvironmentPinTest {
  @Test
  void theEnvironmentIsPinned_withThisOnnxRuntimeVersion() {
    assertThat(OrtEnvironment.getEnvironment()).isNotNull();
    assertThat(OrtEnvironmentPin.pin()).isTrue();
    assertThat(OrtEnvironmentPin.pin()).as("once per JVM").isTrue();
  }
}
