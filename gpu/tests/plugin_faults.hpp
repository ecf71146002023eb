// Plug-ins that break the contract on purpose (plugin_faults.cu), registered in the test
// executable gpu_plugin_faults_tests only, so that the driver's checks can be seen to catch each
// fault: "ext-test-overlap" (every object at the pool's start), "ext-test-outside" (past its
// end), "ext-test-misaligned" (16 B promised, 8 B off), "ext-test-leak" (says it reuses freed
// memory, never does) and "ext-test-stall" (malloc waits while a gate is shut).
#pragma once

namespace alloclab::gpu::test {

// The stall plug-in's gate, in host memory the device reads: shut (true) makes every malloc of
// ext-test-stall wait until it opens.
void shut_stall_gate(bool shut);
// After a KernelHung: opens the gate, waits for the kernel to end and makes the device usable
// again in this process (the memory the driver left behind is not given back).
void recover_from_stall();

}  // namespace alloclab::gpu::test
