// SPDX-License-Identifier: Apache-2.0
// Umbrella for the NVMe specification structures bam uses.
#pragma once

#include <bam/nvme/command.hpp>
#include <bam/nvme/completion.hpp>
#include <bam/nvme/identify.hpp>
#include <bam/nvme/registers.hpp>
