-- install_spec.lua -- `cmake --install` into a temporary prefix, then the embedding example of
-- docs/embedding.md built out of tree against the installed files (find_package and pkg-config),
-- run, and its PTX checked. No GPU needed.
local H = require "helper"
local shq = H.shq

-- the ```c block of docs/embedding.md
local function example()
  local doc = assert(H.read(H.root .. "/docs/embedding.md"))
  return assert(doc:match("```c\n(.-)\n```"), "docs/embedding.md has no ```c block") .. "\n"
end

local prefix, work
local function install()
  if prefix then return end
  work = H.tmpfile(".install")
  prefix = work .. "/prefix"
  local _, err, rc = H.sh("mkdir -p " .. shq(work) .. " && cmake --install " .. shq(H.build) .. " --prefix " .. shq(prefix))
  assert(rc == 0, "cmake --install failed: " .. err)
  H.write(work .. "/embed.c", example())
end

local EXPECT = "1 kernel: scale\n"
local function check_output(out)
  assert.are.equal(EXPECT, out:sub(1, #EXPECT))
  assert.truthy(out:find("\n.visible .entry scale()\n", 1, true), out)
  assert.truthy(out:find("add.u32 \t%r1, %r1, 8;", 1, true), out)
end

-- the ```c block of docs/embedding.md saved as launch.c (the C launch API, run on the emulator)
local function launch_example()
  local doc = assert(H.read(H.root .. "/docs/embedding.md"))
  return assert(doc:match("<!%-%- file: launch%.c %-%->\n```c\n(.-)\n```"), "docs/embedding.md has no launch.c block") .. "\n"
end

describe("cmake --install", function()
  it("installs the library, the header, the Lua files, the CMake package and ptxlua.pc", function()
    install()
    for _, f in ipairs { "include/ptxlua.h", "lib/libptxlua.so", "lib/libptxlua.a", "lib/cmake/ptxlua/ptxluaConfig.cmake",
                         "lib/cmake/ptxlua/ptxluaConfigVersion.cmake", "lib/pkgconfig/ptxlua.pc",
                         "share/lua/5.1/ptxlua/init.lua", "share/lua/5.1/ptxlua/repl.lua", "bin/ptxlua" } do
      local _, _, rc = H.sh("test -e " .. shq(prefix .. "/" .. f))
      assert(rc == 0, f .. " is not installed")
    end
  end)

  it("builds the embedding example with find_package(ptxlua) and runs it", function()
    install()
    local dir = work .. "/cm"
    H.sh("mkdir -p " .. shq(dir))
    H.write(dir .. "/CMakeLists.txt", table.concat({
      "cmake_minimum_required(VERSION 3.16)", "project(embed C)", "find_package(ptxlua 0.1 REQUIRED)",
      "add_executable(embed ../embed.c)", "target_link_libraries(embed PRIVATE ptxlua::ptxlua)", "" }, "\n"))
    local _, err, rc = H.sh(string.format("cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=%s >/dev/null && cmake --build %s/build >/dev/null",
      shq(dir), shq(dir), shq(prefix), shq(dir)))
    assert(rc == 0, "the CMake build failed: " .. err)
    local out, err2, rc2 = H.sh("PTXLUA_LUA_DIR=" .. shq(prefix .. "/share/lua/5.1") .. " " .. shq(dir .. "/build/embed"))
    assert.are.equal(0, rc2, err2)
    check_output(out)
  end)

  it("builds the embedding example with pkg-config and runs it", function()
    install()
    local _, _, has = H.sh("command -v pkg-config")
    if has ~= 0 then return H.pending("no pkg-config") end
    local env = "PKG_CONFIG_PATH=" .. shq(prefix .. "/lib/pkgconfig") .. " "
    local cflags = H.sh(env .. "pkg-config --cflags --libs ptxlua")
    assert.truthy(cflags:find("-lptxlua", 1, true), cflags)
    local luadir = H.sh(env .. "pkg-config --variable=luadir ptxlua"):gsub("%s+$", "")
    local _, err, rc = H.sh(string.format("cd %s && export %s && cc -o embed-pc embed.c $(pkg-config --cflags --libs ptxlua) -Wl,-rpath,$(pkg-config --variable=libdir ptxlua)",
      shq(work), env))
    assert(rc == 0, "the pkg-config build failed: " .. err)
    local out, err2, rc2 = H.sh("PTXLUA_LUA_DIR=" .. shq(luadir) .. " " .. shq(work .. "/embed-pc"))
    assert.are.equal(0, rc2, err2)
    check_output(out)
  end)

  it("builds the launch example against the installed files and runs it on the emulator", function()
    install()
    local _, _, has = H.sh("command -v pkg-config")
    if has ~= 0 then return H.pending("no pkg-config") end
    H.write(work .. "/launch.c", launch_example())
    local env = "PKG_CONFIG_PATH=" .. shq(prefix .. "/lib/pkgconfig") .. " "
    local _, err, rc = H.sh(string.format("cd %s && export %s && cc -std=c11 -Wall -Werror -o launch launch.c $(pkg-config --cflags --libs ptxlua) -Wl,-rpath,$(pkg-config --variable=libdir ptxlua)",
      shq(work), env))
    assert(rc == 0, "the launch example does not build: " .. err)
    local luadir = H.sh(env .. "pkg-config --variable=luadir ptxlua"):gsub("%s+$", "")
    local out, err2, rc2 = H.sh("cd " .. shq(H.root) .. " && PTXLUA_LUA_DIR=" .. shq(luadir) .. " " .. shq(work .. "/launch"))
    assert.are.equal(0, rc2, err2)
    assert.are.equal("emu: 1000 of 1000 elements right\n" ..
      "kernels/vector_add.lua:4: error: launch of vector_add: argument 4 (n): a .u32 parameter (4 bytes), got f32\n", out)
  end)
end)
