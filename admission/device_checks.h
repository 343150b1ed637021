#pragma once
// The device decision: a CDI name the repository holds, its spec reviewed and its hardware where the grant
// recorded it; every other way of attaching a device (raw devices, a driver's --gpus, a runtime or
// an annotation that injects them) refused with the CDI form to use instead.
// Parts of the body's checks (body_checks.h), for admission's own files.

#include <optional>
#include <string>

#include "admission/body_checks.h"
#include "admission/host_config_fields.h"
#include "core/host_policy.h"
#include "docker/go_json.h"

namespace rgpu::admission {

/// What a tenant that asked for devices another way is told to do: ask by a name its repository
/// holds, or, holding none, have an operator grant one. Never a name it does not hold.
std::string cdi_form(CheckContext& context);

Refusal check_device_requests(const Fields& hc, CheckContext& context);

Refusal check_devices(const Fields& hc, GateWorld& world, const PolicyRules& policy);

}  // namespace rgpu::admission
