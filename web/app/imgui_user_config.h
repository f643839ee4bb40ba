// Dear ImGui build options for the browser app (passed as IMGUI_USER_CONFIG).
#pragma once
// 32-bit indices: one draw list may hold more than 64K vertices (labels and tables of big graphs).
#define ImDrawIdx unsigned int
