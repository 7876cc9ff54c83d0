package org.meshjava.engine.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtLoggingLevel;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One more native reference to ONNX Runtime's environment, taken once per JVM and never given back,
 * so that the environment outlives the JVM's shutdown hooks.
 *
 * <p>Why: ONNX Runtime (1.20) registers a shutdown hook that releases its environment, and the JVM
 * runs its hooks side by side. A stop by signal while a session was being created (MiniLM's, as
 * {@code mesh demo} or {@code mesh serve} start) released the environment under that native call,
 * which then crashed the JVM (SIGSEGV in {@code libonnxruntime.so}, exit 134, an {@code
 * hs_err_pid*.log} left in the working folder); no hook of ours can run before or after theirs. The
 * native environment is counted: a second reference makes their release a decrement, and the
 * environment is freed with the process. {@link ExitHold} then keeps the process from ending while
 * the session is created.
 *
 * <p>ONNX Runtime offers no call for this; its environment's own native constructor is reached
 * through its automatic module, which opens its packages. Should a later version rename it, no
 * reference is taken (and this module's test says so). Thread-safe.
 */
final class OrtEnvironmentPin {
  private static final AtomicBoolean PINNED = new AtomicBoolean();

  private OrtEnvironmentPin() {}

  /**
   * Takes the reference, once per JVM, after {@link OrtEnvironment#getEnvironment()} has made the
   * environment; true where it is taken (now or before).
   */
  static boolean pin() {
    if (PINNED.get()) {
      return true;
    }
    synchronized (PINNED) {
      if (PINNED.get()) {
        return true;
      }
      try {
        Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
        api.setAccessible(true);
        Method create =
            OrtEnvironment.class.getDeclaredMethod(
                "createHandle", long.class, int.class, String.class);
        create.setAccessible(true);
        // The name and level ONNX Runtime's own default environment has: the environment is one
        // per process, and a second reference to it is counted, not made anew.
        create.invoke(
            null,
            api.getLong(null),
            OrtLoggingLevel.ORT_LOGGING_LEVEL_WARNING.getValue(),
            OrtEnvironment.DEFAULT_NAME);
        PINNED.set(true);
        return true;
      } catch (ReflectiveOperationException | RuntimeException e) {
        return false;
      }
    }
  }
}
