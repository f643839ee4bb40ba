#include "graph_renderer.h"

#include <GLES3/gl3.h>

#include <stdexcept>
#include <string>

#include "app_shaders.h"  // generated from shaders/ by web/CMakeLists.txt
#include "common/internal_error.h"

namespace graphcost::app {
namespace {

unsigned compile(GLenum kind, const char* source, const char* name) {
  const unsigned shader = glCreateShader(kind);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    throw InternalError(std::string("shader ") + name + ": " + log);
  }
  return shader;
}

unsigned link(const char* vertex, const char* fragment, const char* name) {
  const unsigned program = glCreateProgram();
  glAttachShader(program, compile(GL_VERTEX_SHADER, vertex, name));
  glAttachShader(program, compile(GL_FRAGMENT_SHADER, fragment, name));
  glLinkProgram(program);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    throw InternalError(std::string("program ") + name + ": " + log);
  }
  return program;
}

// Attribute 0: the per-vertex quad; 1 and 2: per-instance vec4 + normalised RGBA bytes.
void describe_instances(unsigned quad, unsigned instances, GLsizei stride) {
  glBindBuffer(GL_ARRAY_BUFFER, quad);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, instances);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, stride, nullptr);
  glVertexAttribDivisor(1, 1);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<const void*>(4 * sizeof(float)));
  glVertexAttribDivisor(2, 1);
}

void set_camera(unsigned program, const Camera& camera, int width, int height) {
  glUniform2f(glGetUniformLocation(program, "u_centre"), camera.centre_x, camera.centre_y);
  glUniform1f(glGetUniformLocation(program, "u_scale"), camera.scale);
  glUniform2f(glGetUniformLocation(program, "u_viewport"), static_cast<float>(width), static_cast<float>(height));
}

}  // namespace

GraphRenderer::GraphRenderer() {
  node_program_ = link(shaders::kNodeVert, shaders::kNodeFrag, "node");
  edge_program_ = link(shaders::kEdgeVert, shaders::kEdgeFrag, "edge");
  const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};        // triangle strip
  const float segment_quad[] = {0, -1, 1, -1, 0, 1, 1, 1};  // along 0..1, across -1..1
  glGenBuffers(1, &quad_buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_buffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  glGenBuffers(1, &segment_quad_buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, segment_quad_buffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof segment_quad, segment_quad, GL_STATIC_DRAW);
  glGenBuffers(1, &node_buffer_);
  glGenBuffers(1, &edge_buffer_);
  glGenBuffers(1, &backdrop_buffer_);
  glGenVertexArrays(1, &backdrop_vao_);
  glBindVertexArray(backdrop_vao_);
  describe_instances(quad_buffer_, backdrop_buffer_, sizeof(NodeInstance));
  glGenVertexArrays(1, &node_vao_);
  glBindVertexArray(node_vao_);
  describe_instances(quad_buffer_, node_buffer_, sizeof(NodeInstance));
  glGenVertexArrays(1, &edge_vao_);
  glBindVertexArray(edge_vao_);
  describe_instances(segment_quad_buffer_, edge_buffer_, sizeof(EdgeInstance));
  glBindVertexArray(0);
}

GraphRenderer::~GraphRenderer() {
  glDeleteVertexArrays(1, &node_vao_);
  glDeleteVertexArrays(1, &edge_vao_);
  glDeleteVertexArrays(1, &backdrop_vao_);
  const unsigned buffers[] = {quad_buffer_, segment_quad_buffer_, node_buffer_, edge_buffer_, backdrop_buffer_};
  glDeleteBuffers(5, buffers);
  glDeleteProgram(node_program_);
  glDeleteProgram(edge_program_);
}

void GraphRenderer::upload(const std::vector<NodeInstance>& nodes, const std::vector<EdgeInstance>& edges,
                           const std::vector<NodeInstance>& backdrop) {
  // An empty list is not uploaded (the count says there is nothing to draw): respecifying a buffer
  // as empty cost about a second in both Chromium's and Firefox's software GL.
  if (!backdrop.empty()) {
    glBindBuffer(GL_ARRAY_BUFFER, backdrop_buffer_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(backdrop.size() * sizeof(NodeInstance)), backdrop.data(), GL_DYNAMIC_DRAW);
  }
  backdrop_count_ = static_cast<int>(backdrop.size());
  glBindBuffer(GL_ARRAY_BUFFER, node_buffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(nodes.size() * sizeof(NodeInstance)), nodes.data(), GL_DYNAMIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, edge_buffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(edges.size() * sizeof(EdgeInstance)), edges.data(), GL_DYNAMIC_DRAW);
  node_count_ = static_cast<int>(nodes.size());
  edge_count_ = static_cast<int>(edges.size());
}

void GraphRenderer::draw(const Camera& camera, int x, int y, int width, int height, float edge_width, bool edges) const {
  if (width <= 0 || height <= 0) return;
  glViewport(x, y, width, height);
  glEnable(GL_SCISSOR_TEST);
  glScissor(x, y, width, height);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  if (backdrop_count_ > 0) {
    glUseProgram(node_program_);
    set_camera(node_program_, camera, width, height);
    glBindVertexArray(backdrop_vao_);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, backdrop_count_);
  }
  if (edges) {
    glUseProgram(edge_program_);
    set_camera(edge_program_, camera, width, height);
    glUniform1f(glGetUniformLocation(edge_program_, "u_width"), edge_width);
    glBindVertexArray(edge_vao_);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, edge_count_);
  }
  glUseProgram(node_program_);
  set_camera(node_program_, camera, width, height);
  glBindVertexArray(node_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, node_count_);
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
}

}  // namespace graphcost::app
